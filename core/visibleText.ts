/**
 * Candidate-controlled text (outcome messages, exception type names, snippet code) made safe to show a person:
 * control characters become visible escapes, so an ANSI sequence, a carriage return, a bell or a NUL in a
 * model's or a mutant's output cannot rewrite a terminal line or hide text in a report. Newline and tab are kept
 * where the text is multi-line (code blocks); everything else in C0, DEL, C1, the Unicode line/paragraph
 * separators and the bidirectional overrides ("Trojan Source") is escaped as \xNN or \uNNNN.
 * infra/runner/sandbox.py `visible` applies the same rule to every outcome at its source.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escape = (c: string): string => {
  const n = c.charCodeAt(0);
  return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
};

/** Control characters as visible escapes; newline and tab kept (code, multi-line messages). */
export function visibleText(s: string): string {
  return s.replace(CONTROL, escape);
}

/** The same for a single line of terminal output: newline and tab are escaped too. */
export function visibleLine(s: string): string {
  return s.replace(CONTROL_ONE_LINE, escape);
}

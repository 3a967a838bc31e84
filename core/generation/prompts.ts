/**
 * Builds the messages of one generation attempt from a locked prompt set (loaded from `data/prompts/` by the
 * activity; this module does no I/O). A regeneration appends the previous attempt's reasons, as the issue asks:
 * the gate's rejection messages, or the JSON parse error.
 */
import { BUG_TYPES } from '../../schemas/task.ts';
import { renderTemplate } from './render.ts';
import type { RegistryEntry } from './types.ts';

/** A locked prompt set (entry or registry generation: the same three parts). */
export interface PromptSet {
  /** e.g. `entry.v1` */
  id: string;
  system: string;
  user: string;
  feedback: string;
}

export interface PromptMessages {
  system: string;
  user: string;
}

export interface Feedback {
  previous_attempt: number;
  reasons: string[];
}

/** Long tracebacks or dozens of reasons would crowd out the task itself; the first few carry the signal. */
const MAX_REASONS = 12;
const MAX_REASON_CHARS = 400;

export function formatReasons(reasons: readonly string[]): string {
  const shown = reasons.slice(0, MAX_REASONS).map((r) => {
    const one = r.replace(/\s+/g, ' ').trim();
    return `- ${one.length > MAX_REASON_CHARS ? one.slice(0, MAX_REASON_CHARS) + ' ...' : one}`;
  });
  if (reasons.length > MAX_REASONS) shown.push(`- ... and ${reasons.length - MAX_REASONS} more`);
  return shown.join('\n');
}

/** The system message as is, and the user message with the previous attempt's reasons appended (if any). */
function messages(set: PromptSet, user: string, feedback?: Feedback): PromptMessages {
  if (feedback && feedback.reasons.length) {
    user += renderTemplate(set.feedback, { previous_attempt: feedback.previous_attempt, reasons: formatReasons(feedback.reasons) }, `${set.id}.feedback`);
  }
  return { system: renderTemplate(set.system, {}, `${set.id}.system`), user };
}

export function buildEntryPrompt(set: PromptSet, entry: RegistryEntry, feedback?: Feedback): PromptMessages {
  const vars = { function_name: entry.function_name, domain: entry.domain, query: entry.query, bug_types: BUG_TYPES.join(', ') };
  return messages(set, renderTemplate(set.user, vars, `${set.id}.user`), feedback);
}

export function buildRegistryPrompt(set: PromptSet, domain: string, count: number, takenNames: readonly string[], feedback?: Feedback): PromptMessages {
  const taken = takenNames.length ? takenNames.join(', ') : '(none yet)';
  return messages(set, renderTemplate(set.user, { domain, count, taken_names: taken }, `${set.id}.user`), feedback);
}

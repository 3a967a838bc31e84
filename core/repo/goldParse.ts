import { GoldCase } from '../../schemas/gold.ts';
import { parseJsonl } from '../jsonl.ts';

/**
 * Gold cases are JSONL (one case a line) so an error can name file and line. Every bad line is reported
 * with its field paths; good lines are kept; duplicate ids are an error on the later line.
 */
export interface GoldError {
  file: string;
  line: number;
  case_id?: string;
  field: string;
  message: string;
  /** `stale_target`: a well-formed case whose evidence target is absent at its pinned revision (found by the run, not the parser). */
  kind?: 'stale_target';
}

export function parseGoldJsonl(text: string, file: string): { cases: GoldCase[]; errors: GoldError[]; lines: Map<string, number> } {
  const cases: GoldCase[] = [];
  const errors: GoldError[] = [];
  const seen = new Map<string, number>();
  parseJsonl(text, GoldCase, {
    record: (line, c) => {
      const prev = seen.get(c.id);
      if (prev !== undefined) {
        errors.push({ file, line, case_id: c.id, field: 'id', message: `duplicate id (first on line ${prev})` });
        return;
      }
      seen.set(c.id, line);
      cases.push(c);
    },
    badJson: (line, message) => errors.push({ file, line, field: '(line)', message: `invalid JSON: ${message}` }),
    invalid: (line, issues, value) => {
      const id = typeof (value as { id?: unknown })?.id === 'string' ? (value as { id: string }).id : undefined;
      for (const is of issues) errors.push({ file, line, case_id: id, field: is.path.map(String).join('.') || '(case)', message: is.message });
    },
  });
  return { cases, errors, lines: seen };
}

export function formatGoldError(e: GoldError): string {
  return `${e.file}:${e.line}${e.case_id ? ` (${e.case_id})` : ''} ${e.field}: ${e.message}`;
}

import { GoldCase } from '../../schemas/gold.ts';

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
}

export function parseGoldJsonl(text: string, file: string): { cases: GoldCase[]; errors: GoldError[] } {
  const cases: GoldCase[] = [];
  const errors: GoldError[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      errors.push({ file, line, field: '(line)', message: `invalid JSON: ${(e as Error).message}` });
      return;
    }
    const id = typeof (value as { id?: unknown })?.id === 'string' ? (value as { id: string }).id : undefined;
    const parsed = GoldCase.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        errors.push({ file, line, case_id: id, field: issue.path.map(String).join('.') || '(case)', message: issue.message });
      }
      return;
    }
    const prev = seen.get(parsed.data.id);
    if (prev !== undefined) {
      errors.push({ file, line, case_id: parsed.data.id, field: 'id', message: `duplicate id (first on line ${prev})` });
      return;
    }
    seen.set(parsed.data.id, line);
    cases.push(parsed.data);
  });
  return { cases, errors };
}

export function formatGoldError(e: GoldError): string {
  return `${e.file}:${e.line}${e.case_id ? ` (${e.case_id})` : ''} ${e.field}: ${e.message}`;
}

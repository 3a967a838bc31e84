/** What a zod schema's `safeParse` returns, without depending on zod's types. */
export interface SafeParser<T> {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

export interface JsonlIssue {
  /** `a.b[2].c` (see fieldPath); empty for the record as a whole. */
  field: string;
  path: readonly PropertyKey[];
  message: string;
}

export interface JsonlHandlers<T> {
  /** A line that parsed and validated. */
  record(line: number, value: T, raw: unknown): void;
  /** A line that is not JSON. */
  badJson(line: number, message: string): void;
  /** A line that is JSON but fails the schema (every issue, with its path). */
  invalid(line: number, issues: readonly JsonlIssue[], raw: unknown): void;
}

/** `a.b[2].c` from a schema issue path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
}

/**
 * Schema issues as one line, `a.b.2: message; …` (dotted paths, as zod reports them). `limit` keeps the first
 * issues only; `root` names an issue on the value itself (empty path).
 */
export function formatIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  opts: { limit?: number; root?: string } = {},
): string {
  return issues
    .slice(0, opts.limit ?? issues.length)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : (opts.root ?? '')}: ${i.message}`)
    .join('; ');
}

/**
 * The one JSONL loop: every non-blank line (1-based numbers) goes to exactly one handler, so a bad record is
 * reported with its line and the rest of the file is kept. Callers decide the wording of their reports.
 */
export function parseJsonl<T>(text: string, schema: SafeParser<T>, on: JsonlHandlers<T>): void {
  text.split('\n').forEach((src, i) => {
    const line = i + 1;
    if (!src.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(src);
    } catch (err) {
      on.badJson(line, (err as Error).message);
      return;
    }
    const r = schema.safeParse(raw);
    if (r.success) on.record(line, r.data, raw);
    else on.invalid(line, r.error.issues.map((is) => ({ field: fieldPath(is.path), path: is.path, message: is.message })), raw);
  });
}

import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { tableFromIPC, type Table } from 'apache-arrow';
import type { RunRow } from '../../core/ranking/imported.ts';
import { readParquet } from '../storage/parquet.ts';
import { StopError, EXIT_CODES } from '../faults.ts';

/**
 * Readers for ranked runs from other systems, each giving RunRow[] (checked later against the benchmark):
 *   trec     `qid Q0 docid rank score [tag]` per line (what trec_eval, pytrec_eval, ranx, ir_measures read and write)
 *   csv/tsv  a header line with query_id, corpus_id, score and optionally rank (BEIR's query-id / corpus-id too)
 *   parquet / arrow  the same columns
 *   jsonl    one object a line with the same fields
 * A file that cannot be read as its format stops the import with one line (exit 2) naming file, line and field.
 */
export const RUN_FORMATS = ['trec', 'csv', 'tsv', 'parquet', 'arrow', 'jsonl'] as const;
export type RunFormat = (typeof RUN_FORMATS)[number];

const usage = (msg: string) => new StopError(msg, EXIT_CODES.usage);

/** The format a file's extension implies; anything unrecognised is read as a TREC run (`.run`, `.trec`, `.txt`). */
export function runFormatOf(file: string): RunFormat {
  const ext = extname(file).toLowerCase();
  if (ext === '.csv' || ext === '.tsv' || ext === '.parquet' || ext === '.arrow' || ext === '.jsonl') return ext.slice(1) as RunFormat;
  if (ext === '.feather' || ext === '.ipc') return 'arrow';
  return 'trec';
}

/**
 * Column names we accept for each field (ours first, then the usual spellings of BEIR, pandas exports and ranx;
 * case_id and chunk_id are what a repository run names: `repo eval --rankings`).
 */
const COLUMNS = {
  query_id: ['query_id', 'query-id', 'qid', 'q_id', 'case_id'],
  corpus_id: ['corpus_id', 'corpus-id', 'docid', 'doc_id', 'doc-id', 'chunk_id'],
  score: ['score'],
  rank: ['rank'],
} as const;

function columnIndex(names: readonly string[], field: keyof typeof COLUMNS, file: string, required: boolean): number {
  const i = names.findIndex((n) => (COLUMNS[field] as readonly string[]).includes(n.trim().toLowerCase()));
  if (i < 0 && required) throw usage(`${file}: no ${field} column (columns: ${names.join(', ')}; expected one of ${COLUMNS[field].join(', ')})`);
  return i;
}

/**
 * A score cell: a decimal number (sign, digits, point, exponent), or inf / infinity. Number() is not used alone: it
 * reads '' and ' ' as 0 and '0x10' as 16 (issue 37), and 'inf' as NaN. Anything else is NaN, reported with its text.
 */
function parseNumber(s: string): number {
  const t = s.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  const inf = /^([+-]?)inf(inity)?$/i.exec(t);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  return NaN;
}

/** A row's score with the cell's own text, so a rejected score is reported as the file wrote it. */
const scoreOf = (cell: string): Pick<RunRow, 'score' | 'score_text'> => {
  const score = parseNumber(cell);
  return Number.isFinite(score) ? { score } : { score, score_text: cell.trim() };
};

function parseRank(s: string | undefined, where: string, file: string): number | undefined {
  if (s === undefined || s.trim() === '') return undefined;
  const r = Number(s);
  if (!Number.isInteger(r) || r < 1) throw usage(`${file}: ${where} rank: "${s}" is not a positive integer`);
  return r;
}

function readTrec(file: string, text: string): RunRow[] {
  const rows: RunRow[] = [];
  const name = basename(file);
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const f = line.split(/\s+/);
    const where = `${name}:${i + 1}`;
    if (f.length !== 5 && f.length !== 6) throw usage(`${file}:${i + 1}: expected "qid Q0 docid rank score [tag]" (6 fields), got ${f.length}`);
    rows.push({ query_id: f[0], corpus_id: f[2], rank: parseRank(f[3], `line ${i + 1}`, file), ...scoreOf(f[4]), where });
  });
  return rows;
}

/** One CSV/TSV cell: surrounding double quotes removed ("" inside is a quote); ids never hold the separator. */
function cell(s: string): string {
  const t = s.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).replace(/""/g, '"') : t;
}

function readDelimited(file: string, text: string, sep: string): RunRow[] {
  const lines = text.split(/\r?\n/);
  const header = lines[0].split(sep).map(cell);
  const q = columnIndex(header, 'query_id', file, true);
  const c = columnIndex(header, 'corpus_id', file, true);
  const s = columnIndex(header, 'score', file, true);
  const r = columnIndex(header, 'rank', file, false);
  const name = basename(file);
  const rows: RunRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!lines[i].trim()) continue;
    const f = lines[i].split(sep).map(cell);
    if (f.length !== header.length) throw usage(`${file}:${i + 1}: ${f.length} fields, the header has ${header.length}`);
    rows.push({ query_id: f[q], corpus_id: f[c], ...scoreOf(f[s]), rank: r < 0 ? undefined : parseRank(f[r], `line ${i + 1}`, file), where: `${name}:${i + 1}` });
  }
  return rows;
}

function readColumnar(file: string, table: Table): RunRow[] {
  const names = table.schema.fields.map((f) => f.name);
  const col = (field: keyof typeof COLUMNS, required: boolean) => {
    const i = columnIndex(names, field, file, required);
    return i < 0 ? null : table.getChildAt(i)!;
  };
  const q = col('query_id', true)!;
  const c = col('corpus_id', true)!;
  const s = col('score', true)!;
  const r = col('rank', false);
  const name = basename(file);
  return Array.from({ length: table.numRows }, (_, i) => {
    const score = s.get(i);
    const rank = r?.get(i);
    return {
      query_id: String(q.get(i)),
      corpus_id: String(c.get(i)),
      // A null score is NaN (reported with the row); a bigint (Int64 column) becomes a number.
      score: score === null || score === undefined ? NaN : Number(score),
      rank: rank === null || rank === undefined ? undefined : parseRank(String(rank), `row ${i + 1}`, file),
      where: `${name} row ${i + 1}`,
    };
  });
}

function readJsonl(file: string, text: string): RunRow[] {
  const name = basename(file);
  const rows: RunRow[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(raw) as Record<string, unknown>;
    } catch (e) {
      throw usage(`${file}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    if (o === null || typeof o !== 'object' || Array.isArray(o)) throw usage(`${file}:${i + 1}: expected an object`);
    const keys = Object.keys(o);
    const field = (f: keyof typeof COLUMNS, required: boolean) => {
      const k = keys[columnIndex(keys, f, `${file}:${i + 1}`, required)];
      return k === undefined ? undefined : o[k];
    };
    const id = (f: 'query_id' | 'corpus_id') => {
      const v = field(f, true);
      if (typeof v !== 'string' && typeof v !== 'number') throw usage(`${file}:${i + 1}: ${f}: expected a string, got ${JSON.stringify(v)}`);
      return String(v);
    };
    const score = field('score', true);
    const rank = field('rank', false);
    rows.push({
      query_id: id('query_id'),
      corpus_id: id('corpus_id'),
      // Anything but a JSON number (null, a string) is not a score: NaN, reported with the row.
      score: typeof score === 'number' ? score : NaN,
      rank: rank === undefined || rank === null ? undefined : parseRank(String(rank), `line ${i + 1}`, file),
      where: `${name}:${i + 1}`,
    });
  });
  return rows;
}

/** Reads a run file in `format` (default: from its extension). */
export function readRunFile(file: string, format: RunFormat = runFormatOf(file)): RunRow[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw usage(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    switch (format) {
      case 'trec':
        return readTrec(file, bytes.toString('utf8'));
      case 'csv':
        return readDelimited(file, bytes.toString('utf8'), ',');
      case 'tsv':
        return readDelimited(file, bytes.toString('utf8'), '\t');
      case 'parquet':
        return readColumnar(file, readParquet(file));
      case 'arrow':
        return readColumnar(file, tableFromIPC(bytes));
      case 'jsonl':
        return readJsonl(file, bytes.toString('utf8'));
    }
  } catch (e) {
    if (e instanceof StopError) throw e;
    throw usage(`${file}: not a readable ${format} file (${(e as Error).message})`);
  }
}

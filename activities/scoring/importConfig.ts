import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Table } from 'apache-arrow';
import { checkRun, type RunRow } from '../../core/ranking/imported.ts';
import { benchmarkDirOf } from '../embeddings/benchmarkItems.ts';
import { loadRegistry } from '../embeddings/configs.ts';
import { writeMatrix } from '../embeddings/matrix.ts';
import { EXIT_CODES, StopError } from '../faults.ts';
import { readRunFile, runFormatOf, type RunFormat } from '../importers/runFile.ts';
import { readVectorsFile } from '../importers/vectorsFile.ts';
import { projectRoot } from '../paths.ts';
import { writeJsonAtomic } from '../storage/atomic.ts';
import { float64Column, utf8Column, writeParquet } from '../storage/parquet.ts';
import { loadBenchmark, type LoadedBenchmark } from './benchmark.ts';
import { BM25_CONFIG_ID, IMPORT_MANIFEST, IMPORTED_RANKINGS, type ImportManifest } from './configs.ts';

/**
 * `execretrieval import-rankings` / `import-vectors`: a retriever we did not run becomes a configuration of a run,
 * under runs/<id>/embeddings/<name>/ beside the sweep's, so `score`, `report`, `compare` and the exports treat it
 * like any other:
 *   imported-rankings.parquet  query_id, corpus_id, score (checked rows of a run file), ranked by core/ranking/imported.ts
 *   queries.arrow, corpus.arrow (+ .parquet)  imported vectors, in the sweep's own matrix format (ranked by cosine)
 *   import.json                where it came from (file, sha256, format), and the queries it covers
 * Everything is checked before anything is written; the folder appears whole (written aside, then renamed) or not at all.
 */
const usage = (msg: string) => new StopError(msg, EXIT_CODES.usage);
const NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The target folder, after checking the name: a plain id that names neither BM25 nor a registry entry (the report looks those up). */
export function targetDir(runDir: string, name: string, replace: boolean): string {
  if (!NAME.test(name)) throw usage(`--name ${JSON.stringify(name)}: use letters, digits, '.', '_', '+' and '-' (it becomes a folder and a column value)`);
  if (name === BM25_CONFIG_ID) throw usage(`--name ${name}: the built-in BM25 baseline has this id; pick another name`);
  const registry = loadRegistry({ root: projectRoot() }).entries.map((e) => e.config.config_id);
  if (registry.includes(name)) throw usage(`--name ${name}: a registry configuration has this id; pick another name (the report would describe it as that model)`);
  const dir = join(runDir, 'embeddings', name);
  if (existsSync(dir) && !replace) throw usage(`${dir} exists: pass --replace to overwrite it, or pick another --name`);
  return dir;
}

export function loadRunBenchmark(runDir: string): LoadedBenchmark {
  try {
    return loadBenchmark(benchmarkDirOf(runDir));
  } catch (e) {
    throw usage((e as Error).message);
  }
}

/** Writes the folder aside and renames it into place, replacing an older one only once the new one is complete. */
function publish(dir: string, write: (tmp: string) => void): void {
  const tmp = join(dir, '..', `.${basename(dir)}.import-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  try {
    write(tmp);
    const old = existsSync(dir) ? `${tmp}.old` : null;
    if (old) renameSync(dir, old);
    renameSync(tmp, dir);
    if (old) rmSync(old, { recursive: true, force: true });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

export interface ImportResult {
  dir: string;
  manifest: ImportManifest;
  /** Benchmark queries left out (only with partial). */
  missing: string[];
}

export function importRankings(opts: { runDir: string; name: string; file: string; format?: RunFormat; partial?: boolean; replace?: boolean }): ImportResult {
  const dir = targetDir(opts.runDir, opts.name, opts.replace ?? false);
  const bench = loadRunBenchmark(opts.runDir);
  const file = resolve(opts.file);
  const format = opts.format ?? runFormatOf(file);
  const rows: RunRow[] = readRunFile(file, format);
  const check = checkRun(rows, bench.queries.map((q) => q.query_id), new Set(bench.corpusIndex.keys()), { partial: opts.partial });
  if (check.error) throw usage(`${file}: ${check.error}`);
  const manifest: ImportManifest = {
    config_id: opts.name,
    kind: 'rankings',
    sources: [{ file, sha256: sha256(file), format }],
    rows: rows.length,
    n_queries: check.covered.length,
    covers: check.missing.length ? check.covered : null,
  };
  writeRankingsFolder(dir, rows, manifest);
  return { dir, manifest, missing: check.missing };
}

/** Writes a rankings configuration's folder (imported-rankings.parquet + import.json) whole or not at all. */
export function writeRankingsFolder(dir: string, rows: readonly Pick<RunRow, 'query_id' | 'corpus_id' | 'score'>[], manifest: ImportManifest): void {
  publish(dir, (tmp) => {
    const table = new Table({
      query_id: utf8Column(rows.map((r) => r.query_id)),
      corpus_id: utf8Column(rows.map((r) => r.corpus_id)),
      score: float64Column(rows.map((r) => r.score)),
    });
    writeParquet(join(tmp, IMPORTED_RANKINGS), table, { config_id: manifest.config_id, kind: manifest.kind });
    writeJsonAtomic(join(tmp, IMPORT_MANIFEST), manifest);
  });
}

const SHOW = 3;
const listed = (items: readonly string[]) => `${items.slice(0, SHOW).join('; ')}${items.length > SHOW ? `, and ${items.length - SHOW} more` : ''}`;

/**
 * Vectors for the benchmark's queries and corpus, from one or more files (Parquet/Arrow `id, vector`, or `.npy` with
 * `ids`); each id is put with the queries or the corpus by the benchmark's own ids. Every corpus item needs a
 * vector (a missing one could never be retrieved); a query without one is an error unless `partial`.
 */
export function importVectors(opts: { runDir: string; name: string; files: readonly string[]; ids?: string; partial?: boolean; replace?: boolean }): ImportResult {
  const dir = targetDir(opts.runDir, opts.name, opts.replace ?? false);
  const bench = loadRunBenchmark(opts.runDir);
  const npy = opts.files.filter((f) => f.toLowerCase().endsWith('.npy'));
  if (opts.ids && npy.length !== 1) throw usage(`--ids goes with exactly one .npy file (got ${npy.length})`);
  const queryIds = new Set(bench.queries.map((q) => q.query_id));
  const q = new Map<string, Float32Array>();
  const c = new Map<string, Float32Array>();
  const seen = new Map<string, string>();
  const problems = { unknown: [] as string[], both: [] as string[], dup: [] as string[], nan: [] as string[], dims: [] as string[] };
  let dims = -1;
  const sources: ImportManifest['sources'] = [];
  let rows = 0;
  for (const f of opts.files) {
    const file = resolve(f);
    const v = readVectorsFile(file, f.toLowerCase().endsWith('.npy') ? opts.ids && resolve(opts.ids) : undefined);
    sources.push({ file, sha256: sha256(file), format: f.toLowerCase().endsWith('.npy') ? 'npy' : f.toLowerCase().endsWith('.parquet') ? 'parquet' : 'arrow' });
    if (dims < 0) dims = v.dims;
    if (v.dims !== dims && v.ids.length) problems.dims.push(`${basename(file)}: ${v.dims} (first file: ${dims})`);
    v.ids.forEach((id, i) => {
      rows++;
      const where = v.where(i);
      const isQ = queryIds.has(id);
      const isC = bench.corpusIndex.has(id);
      if (!isQ && !isC) return void problems.unknown.push(`${where}: ${id}`);
      if (isQ && isC) return void problems.both.push(`${where}: ${id}`);
      const first = seen.get(id);
      if (first) return void problems.dup.push(`${where}: ${id} again (first at ${first})`);
      seen.set(id, where);
      const row = v.data.subarray(i * v.dims, (i + 1) * v.dims);
      if (row.some((x) => !Number.isFinite(x))) return void problems.nan.push(`${where}: ${id}`);
      (isQ ? q : c).set(id, Float32Array.from(row));
    });
  }
  const missingC = bench.corpus.map((x) => x.corpus_id).filter((id) => !c.has(id));
  const missingQ = bench.queries.map((x) => x.query_id).filter((id) => !q.has(id));
  const out: string[] = [];
  if (rows === 0) out.push('no vectors');
  if (problems.dims.length) out.push(`vector widths differ (${listed(problems.dims)})`);
  if (problems.unknown.length) out.push(`${problems.unknown.length} unknown ids (${listed(problems.unknown)})`);
  if (problems.both.length) out.push(`${problems.both.length} ids that are both a query and a corpus id (${listed(problems.both)})`);
  if (problems.dup.length) out.push(`${problems.dup.length} duplicate ids (${listed(problems.dup)})`);
  if (problems.nan.length) out.push(`${problems.nan.length} vectors with values that are not finite numbers (${listed(problems.nan)})`);
  if (missingC.length && rows) out.push(`${missingC.length} corpus items without a vector (${listed(missingC)})`);
  if (missingQ.length && rows && !opts.partial) out.push(`${missingQ.length} benchmark queries without a vector (${listed(missingQ)}): import them, or pass --partial to score every configuration on the ${q.size} queries this covers`);
  if (q.size === 0 && rows) out.push('no query vectors');
  if (out.length) throw usage(`${opts.files.map((f) => resolve(f)).join(', ')}: ${out.join('; ')}`);
  const covered = bench.queries.map((x) => x.query_id).filter((id) => q.has(id));
  const manifest: ImportManifest = { config_id: opts.name, kind: 'vectors', sources, rows, n_queries: covered.length, covers: missingQ.length ? covered : null };
  const matrix = (ids: string[], m: Map<string, Float32Array>) => {
    const data = new Float32Array(ids.length * dims);
    ids.forEach((id, i) => data.set(m.get(id)!, i * dims));
    return { ids, dims, data };
  };
  publish(dir, (tmp) => {
    const meta = { config_id: opts.name, source: 'import', files: sources.map((s) => s.file).join(',') };
    writeMatrix(join(tmp, 'queries'), matrix(covered, q), meta);
    writeMatrix(join(tmp, 'corpus'), matrix(bench.corpus.map((x) => x.corpus_id), c), meta);
    writeJsonAtomic(join(tmp, IMPORT_MANIFEST), manifest);
  });
  return { dir, manifest, missing: missingQ };
}

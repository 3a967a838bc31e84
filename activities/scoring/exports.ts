import { join } from 'node:path';
import type { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import { writeFileAtomic, writeJsonAtomic, writeJsonlAtomic } from '../storage/atomic.ts';

/** One query's stored ranking, in our rank order (hash tie-break included), with the retriever's raw scores. */
export interface ExportRanking {
  query_id: string;
  hits: { corpus_id: string; score: number }[];
}

/**
 * BEIR / MTEB retrieval layout (what `beir.datasets.data_loader.GenericDataLoader` and MTEB's custom
 * retrieval tasks read): `corpus.jsonl` ({_id, title, text}), `queries.jsonl` ({_id, text}) and
 * `qrels/test.tsv` (header `query-id corpus-id score`, one row per correct id, score 1). Our extra fields
 * ride in `metadata` (BEIR ignores unknown keys).
 */
export function writeBeirExport(dir: string, queries: readonly QueryRecord[], corpus: readonly CorpusRecord[]): void {
  writeJsonlAtomic(
    join(dir, 'corpus.jsonl'),
    corpus.map((c) => ({ _id: c.corpus_id, title: c.function_name, text: c.code, metadata: { query_id: c.query_id, is_canonical: c.is_canonical, bug_type: c.bug_type } })),
  );
  writeJsonlAtomic(join(dir, 'queries.jsonl'), queries.map((q) => ({ _id: q.query_id, text: q.query, metadata: { domain: q.domain, function_name: q.function_name } })));
  const rows = ['query-id\tcorpus-id\tscore', ...queries.flatMap((q) => q.correct_corpus_ids.map((c) => `${q.query_id}\t${c}\t1`))];
  writeFileAtomic(join(dir, 'qrels', 'test.tsv'), rows.join('\n') + '\n');
}

/**
 * The score an exported run file carries for the item at 0-based position `i` of a list of `n`: n − i, strictly
 * decreasing in our order. trec_eval, pytrec_eval, ir_measures and BEIR ignore a run's rank column and re-sort
 * by score, breaking exact ties their own way (trec_eval: by docid, descending); with raw scores a tied group
 * would be evaluated in another order than the one we scored. With these they evaluate ours.
 */
export const exportScore = (i: number, n: number) => n - i;

/**
 * TREC run file (`qid Q0 docid rank score tag`, what trec_eval / pytrec_eval / ranx / ir_measures read) with
 * scores from exportScore, and next to it `<config>.scores.tsv` (`query_id corpus_id rank score`, header
 * line) with the retriever's raw scores for the same rows.
 */
export function writeTrecRun(dir: string, configId: string, rankings: readonly ExportRanking[]): void {
  const tag = configId.replace(/\s+/g, '_');
  const lines: string[] = [];
  const raw: string[] = ['query_id\tcorpus_id\trank\tscore'];
  for (const r of rankings) {
    r.hits.forEach((h, i) => {
      lines.push(`${r.query_id} Q0 ${h.corpus_id} ${i + 1} ${exportScore(i, r.hits.length)} ${tag}`);
      raw.push(`${r.query_id}\t${h.corpus_id}\t${i + 1}\t${h.score}`);
    });
  }
  writeFileAtomic(join(dir, `${configId}.run`), lines.join('\n') + (lines.length ? '\n' : ''));
  writeFileAtomic(join(dir, `${configId}.scores.tsv`), raw.join('\n') + '\n');
}

/**
 * BEIR results (`EvaluateRetrieval.evaluate(qrels, results, k_values)` takes {query_id: {corpus_id: score}}):
 * `results/<config>.json`, scores from exportScore (BEIR evaluates through pytrec_eval, so the same tie rule
 * applies); raw scores are in export/trec/<config>.scores.tsv.
 */
export function writeBeirResults(dir: string, configId: string, rankings: readonly ExportRanking[]): void {
  const out: Record<string, Record<string, number>> = {};
  for (const r of rankings) out[r.query_id] = Object.fromEntries(r.hits.map((h, i) => [h.corpus_id, exportScore(i, r.hits.length)]));
  writeJsonAtomic(join(dir, 'results', `${configId}.json`), out);
}

export function writeTrecQrels(path: string, queries: readonly QueryRecord[]): void {
  writeFileAtomic(path, queries.flatMap((q) => q.correct_corpus_ids.map((c) => `${q.query_id} 0 ${c} 1`)).join('\n') + '\n');
}

/**
 * Execution qrels: every (query, snippet) pair the oracle judged, relevance 1 when the snippet passes all of the
 * query's tests, else 0 (TREC `qid 0 docid rel`, and BEIR `qrels/exec.tsv`). With these a standard evaluator
 * computes our execution metrics from the run files: success_k = exec@k, P_k = execp@k, and recip_rank on the
 * top-10 of the run = rr_exec@10. Pairs never executed (below rank 10 and outside the tie at rank 10) are
 * unjudged, which trec_eval treats as not relevant.
 */
export function writeExecQrels(trecPath: string, beirPath: string, rows: readonly { query_id: string; corpus_id: string; passed: boolean }[]): void {
  const sorted = [...rows].sort((a, b) => (a.query_id < b.query_id ? -1 : a.query_id > b.query_id ? 1 : a.corpus_id < b.corpus_id ? -1 : a.corpus_id > b.corpus_id ? 1 : 0));
  writeFileAtomic(trecPath, sorted.map((r) => `${r.query_id} 0 ${r.corpus_id} ${r.passed ? 1 : 0}`).join('\n') + '\n');
  writeFileAtomic(beirPath, ['query-id\tcorpus-id\tscore', ...sorted.map((r) => `${r.query_id}\t${r.corpus_id}\t${r.passed ? 1 : 0}`)].join('\n') + '\n');
}

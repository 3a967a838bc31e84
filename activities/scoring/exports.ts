import { join } from 'node:path';
import type { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import { writeFileAtomic, writeJsonlAtomic } from '../storage/atomic.ts';

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
 * TREC run file (`qid Q0 docid rank score tag`, what trec_eval / pytrec_eval / ranx read) and a TREC qrels
 * file (`qid 0 docid 1`). Note: trec_eval re-sorts a run by score and breaks exact ties by docid in
 * DESCENDING order, while our rankings break ties by a hash of corpus_id (core/ranking/topk.ts); on tied scores trec_eval may
 * therefore evaluate a different order than the one we stored (our own nDCG uses our order).
 */
export function writeTrecRun(path: string, configId: string, rankings: readonly { query_id: string; hits: { corpus_id: string; score: number }[] }[]): void {
  const tag = configId.replace(/\s+/g, '_');
  const lines: string[] = [];
  for (const r of rankings) r.hits.forEach((h, i) => lines.push(`${r.query_id} Q0 ${h.corpus_id} ${i + 1} ${h.score} ${tag}`));
  writeFileAtomic(path, lines.join('\n') + (lines.length ? '\n' : ''));
}

export function writeTrecQrels(path: string, queries: readonly QueryRecord[]): void {
  writeFileAtomic(path, queries.flatMap((q) => q.correct_corpus_ids.map((c) => `${q.query_id} 0 ${c} 1`)).join('\n') + '\n');
}

import { CorpusRecord, QueryRecord } from '../../schemas/benchmark.ts';
import { Task, type Distractor } from '../../schemas/task.ts';
import { readJsonl } from './jsonlReader.ts';
import { releaseFromTasks } from '../../core/release/fromTasks.ts';
import { invalidField, type ImportResult } from './types.ts';

/** Tasks to the paper's release format (see core/release/fromTasks.ts); the task id travels in `metadata`. */
export function toRelease(tasks: readonly Task[]): { queries: QueryRecord[]; corpus: CorpusRecord[] } {
  return releaseFromTasks(
    tasks.map((t) => ({
      task: t,
      source: t.source ? (t.source.ref ? `${t.source.dataset}:${t.source.ref}` : t.source.dataset) : null,
      metadata: { task_id: t.task_id, ...(t.metadata ?? {}) },
    })),
  );
}

/**
 * The release format back to tasks: each query with its first correct corpus item as canonical and its
 * distractor corpus items as distractors. Task ids come from `metadata.task_id` when present (a round trip of
 * our own export), else the query id. Bad records are rejected with file, line and field.
 */
export function importRelease(queriesFile: string, corpusFile: string): ImportResult {
  const q = readJsonl(queriesFile);
  const c = readJsonl(corpusFile);
  const out: ImportResult = { tasks: [], rejections: [...q.rejections, ...c.rejections] };
  const items = new Map<string, CorpusRecord>();
  for (const { line, value } of c.records) {
    const parsed = CorpusRecord.safeParse(value);
    if (!parsed.success) {
      out.rejections.push({ file: corpusFile, line, ...invalidField(parsed.error) });
    } else if (items.has(parsed.data.corpus_id)) {
      out.rejections.push({ file: corpusFile, line, field: 'corpus_id', code: 'DUPLICATE_CORPUS_ID', message: `corpus_id "${parsed.data.corpus_id}" appears twice` });
    } else items.set(parsed.data.corpus_id, parsed.data);
  }
  for (const { line, value } of q.records) {
    const parsed = QueryRecord.safeParse(value);
    const reject = (field: string, code: string, message: string, task_id?: string) =>
      out.rejections.push({ file: queriesFile, line, task_id, field, code, message });
    if (!parsed.success) {
      const { field, code, message } = invalidField(parsed.error);
      reject(field, code, message);
      continue;
    }
    const r = parsed.data;
    const task_id = typeof r.metadata.task_id === 'string' ? r.metadata.task_id : r.query_id;
    const canonical = items.get(r.correct_corpus_ids[0]);
    if (!canonical) { reject('correct_corpus_ids[0]', 'MISSING_CORPUS_ITEM', `no corpus item "${r.correct_corpus_ids[0]}"`, task_id); continue; }
    const missing = r.distractor_corpus_ids.findIndex((id) => !items.has(id));
    if (missing >= 0) { reject(`distractor_corpus_ids[${missing}]`, 'MISSING_CORPUS_ITEM', `no corpus item "${r.distractor_corpus_ids[missing]}"`, task_id); continue; }
    const distractors: Distractor[] = r.distractor_corpus_ids.map((id) => {
      const d = items.get(id)!;
      const m = d.metadata as { operator?: string; span?: Distractor['span']; failing_tests?: number[] };
      return {
        code: d.code, bug_type: d.bug_type ?? 'unknown', bug_description: d.bug_description ?? '',
        ...(m.span ? { span: m.span } : {}), ...(m.failing_tests ? { failing_tests: m.failing_tests } : {}), ...(m.operator ? { operator: m.operator } : {}),
      };
    });
    const { task_id: _drop, ...metadata } = r.metadata;
    const sourceParts = r.source?.split(':');
    const task = Task.safeParse({
      task_id, query: r.query, function_name: r.function_name, ...(r.domain ? { domain: r.domain } : {}),
      canonical: canonical.code,
      ...(r.language ? { language: r.language } : {}),
      tests: r.test_calls
        ? { kind: 'calls', calls: r.test_calls }
        : r.test_program
          ? { kind: 'check', program: r.test_program, entry_point: r.entry_point ?? r.function_name }
          : { kind: 'asserts', tests: r.tests, ...(r.test_setup_code ? { setup: r.test_setup_code } : {}) },
      distractors,
      ...(sourceParts ? { source: { dataset: sourceParts[0], ...(sourceParts.length > 1 ? { ref: sourceParts.slice(1).join(':') } : {}) } } : {}),
      ...(Object.keys(metadata).length ? { metadata } : {}),
    });
    if (!task.success) {
      const { field, code, message } = invalidField(task.error);
      reject(field, code, message, task_id);
      continue;
    }
    out.tasks.push({ task: task.data, file: queriesFile, line });
  }
  return out;
}

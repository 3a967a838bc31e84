/**
 * Turns an LLM's text into a record, or into a parse error that is fed into the next prompt (a malformed
 * response is a failed attempt, never a crash). Models often wrap JSON in a ``` fence or add a sentence around
 * it, so the outermost {...} is taken; anything else that is wrong is reported with the JSON path of the field.
 */
import { z } from 'zod';
import type { Task } from '../../schemas/task.ts';
import type { RegistryEntry } from './types.ts';
import { formatIssues } from '../jsonl.ts';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** The outermost JSON object in `text` (fences and surrounding prose ignored). */
export function extractJsonObject(text: string): Parsed<unknown> {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text);
  const body = fenced ? fenced[1] : text;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end <= start) return { ok: false, error: 'response contains no JSON object' };
  try {
    return { ok: true, value: JSON.parse(body.slice(start, end + 1)) };
  } catch (err) {
    return { ok: false, error: `response is not valid JSON: ${(err as Error).message}` };
  }
}

// The error goes into the next prompt: the first few issues are enough to correct, and stay short.
const zodMessage = (err: z.ZodError): string => formatIssues(err.issues, { limit: 8, root: '(root)' });

const EntryResponse = z.object({
  canonical: z.string().min(1),
  tests: z.array(z.string().min(1)).min(1),
  distractors: z.array(z.object({ code: z.string().min(1), bug_type: z.string().min(1), bug_description: z.string() })),
});

/**
 * Shape only: the counts (7–10 tests, 4 distractors), bug types and semantics are the gate's to judge, so that
 * its reasons, with its stage names, are what the next prompt sees.
 */
export function parseEntryResponse(text: string, entry: RegistryEntry): Parsed<Task> {
  const json = extractJsonObject(text);
  if (!json.ok) return json;
  const r = EntryResponse.safeParse(json.value);
  if (!r.success) return { ok: false, error: `response JSON does not match the entry format: ${zodMessage(r.error)}` };
  const task: Task = {
    task_id: entry.entry_id,
    query: entry.query,
    function_name: entry.function_name,
    domain: entry.domain,
    canonical: r.data.canonical,
    tests: { kind: 'asserts', tests: r.data.tests },
    distractors: r.data.distractors.map((d) => ({ code: d.code, bug_type: d.bug_type, bug_description: d.bug_description })),
  };
  return { ok: true, value: task };
}

const RegistryResponse = z.object({
  entries: z.array(z.object({ function_name: z.string().min(1), query: z.string().min(1), domain: z.string().optional() })),
});

/** Triples without ids (ids are given after deduplication). A triple for another domain is kept but re-labelled. */
export function parseRegistryResponse(text: string, domain: string): Parsed<Omit<RegistryEntry, 'entry_id'>[]> {
  const json = extractJsonObject(text);
  if (!json.ok) return json;
  const r = RegistryResponse.safeParse(json.value);
  if (!r.success) return { ok: false, error: `response JSON does not match the registry format: ${zodMessage(r.error)}` };
  return { ok: true, value: r.data.entries.map((e) => ({ function_name: e.function_name.trim(), query: e.query.trim(), domain })) };
}

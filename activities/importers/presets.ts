import type { FieldMapping } from './mappedJsonl.ts';

/**
 * Field mappings for common public formats (`import jsonl --preset NAME`; `--map` overrides single fields).
 * - `check-program`: HumanEval-style records: `prompt` (signature + docstring), `canonical_solution` (the body),
 *   `test` (a `check(candidate)` program), `entry_point`, `task_id`. The code is prompt + body, the query the
 *   prompt's docstring.
 * - `mbpp`: MBPP's `text`, `code`, `test_list`, `test_setup_code`, `task_id` (ids `mbpp_<task_id>`, as
 *   `import mbpp` names them).
 */
export const PRESETS = {
  'check-program': { id: 'task_id', query: 'docstring({prompt})', code: '{prompt}{canonical_solution}', tests: 'test', entry_point: 'entry_point' },
  mbpp: { id: 'mbpp_{task_id}', query: 'text', code: 'code', tests: 'test_list', setup: 'test_setup_code' },
} as const satisfies Record<string, FieldMapping>;
export type PresetName = keyof typeof PRESETS;

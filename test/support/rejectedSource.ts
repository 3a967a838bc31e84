import { writeFileSync } from 'node:fs';

/**
 * A one-task source that every build rejects at the pre-check (its check() never calls the candidate): a
 * `build`/`run` on it does its real work up to the build and stops there with exit 3, in a second or two.
 */
export function writeRejectedSource(path: string): string {
  const task = {
    task_id: 'n1', query: 'Negate a number', function_name: 'neg', canonical: 'def neg(x):\n    return -x\n',
    tests: { kind: 'check', program: 'def check(candidate):\n    assert abs(-1) == 1\n', entry_point: 'neg' },
  };
  writeFileSync(path, JSON.stringify(task) + '\n');
  return path;
}

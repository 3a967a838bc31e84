// A distractor's recorded span is UTF-8 byte offsets into the canonical (schemas/task.ts Span,
// docs/mutation-operators.md "Spans"): checked on code with non-ASCII text before every mutation site.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openOracle, type Oracle } from '../../activities/exec/oracle.ts';
import { mutateAndVerify } from '../../activities/mutation/verify.ts';
import { toRelease } from '../../activities/importers/release.ts';

let oracle: Oracle;
before(async () => {
  oracle = await openOracle({ cachePath: null, concurrency: 2 });
});
after(async () => {
  await oracle.close();
});

// Two-byte (é, ü), three-byte (→) and four-byte (😀) characters ahead of the code that gets mutated.
const canonical = [
  'def étiquette(n):',
  '    """Größe → label 😀."""',
  '    if n < 0:',
  '        return "négatif"',
  '    if n > 10:',
  '        return "groß"',
  '    return "klein" * (n + 1)',
  '',
].join('\n');
const tests = [-1, 0, 1, 2, 10, 11, 5].map((n) => `assert étiquette(${n}) == ${JSON.stringify(n < 0 ? 'négatif' : n > 10 ? 'groß' : 'klein'.repeat(n + 1))}`);

test('distractor spans are UTF-8 byte offsets: the bytes outside [start, end) are the canonical\'s, and the line is the span\'s', async () => {
  const [out] = await mutateAndVerify([{ task_id: 'utf8', function_name: 'étiquette', canonical, suite: { kind: 'asserts', tests } }], oracle, { seed: 2, mutator: { cachePath: null } });
  assert.equal(out.rejection, undefined, out.rejection?.message);
  assert.equal(out.distractors.length, 4);
  const canon = Buffer.from(canonical, 'utf8');
  for (const d of out.distractors) {
    const { start, end, line } = d.span!;
    const mut = Buffer.from(d.code, 'utf8');
    const tail = canon.length - end;
    assert.deepEqual(mut.subarray(0, start), canon.subarray(0, start), `${d.operator}: bytes before the span`);
    assert.deepEqual(mut.subarray(mut.length - tail), canon.subarray(end), `${d.operator}: bytes after the span`);
    // The line of the span's first byte.
    assert.equal(canon.subarray(0, start).toString('utf8').split('\n').length, line);
    // Read as character offsets, the same numbers point elsewhere: non-ASCII text precedes every site.
    assert.notEqual(canonical.slice(0, start), canon.subarray(0, start).toString('utf8'), `${d.operator}: span ${start} is past non-ASCII text`);
  }
  // The release format carries the same span (corpus metadata.span).
  const { corpus } = toRelease([{ task_id: 'utf8', query: 'label', function_name: 'étiquette', canonical, tests: { kind: 'asserts', tests }, distractors: out.distractors }]);
  assert.deepEqual(corpus.filter((c) => !c.is_canonical).map((c) => (c.metadata as { span: unknown }).span), out.distractors.map((d) => d.span));
});

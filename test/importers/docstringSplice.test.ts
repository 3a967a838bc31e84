import { test } from 'node:test';
import assert from 'node:assert/strict';
import { docstringSpans } from '../../activities/python/astFacts.ts';
import { removeQueryDocstring } from '../../core/importers/docstringSplice.ts';

const cases: { name: string; code: string; query: string; target?: string; want: string | RegExp }[] = [
  {
    name: 'a multi-line docstring between signature and body goes, nothing else moves',
    code: 'import math\n\ndef f(x):\n    """Root of x.\n\n    >>> f(4)\n    2.0\n    """\n    return math.sqrt(x)  # done\n',
    query: 'Root of x.\n\n>>> f(4)\n2.0',
    want: 'import math\n\ndef f(x):\n    return math.sqrt(x)  # done\n',
  },
  {
    name: "the target's docstring, not a helper's; a trailing comment leaves with it",
    code: "def helper():\n    '''Helps.'''\n    return 1\n\ndef f():\n    '''Does f.'''  # the query\n    return helper()\n",
    query: 'Does f.',
    target: 'f',
    want: "def helper():\n    '''Helps.'''\n    return 1\n\ndef f():\n    return helper()\n",
  },
  { name: 'a docstring sharing its line with code stays', code: 'def f(): """Does f."""; return 1\n', query: 'Does f.', want: /shares a line/ },
  { name: "the function's only statement stays", code: 'def f():\n    """Does f."""\n', query: 'Does f.', want: /only statement/ },
  { name: 'a docstring that is not the query stays', code: 'def f():\n    """Other text."""\n    return 1\n', query: 'Does f.', want: /not the query/ },
  { name: 'no docstring', code: 'def f():\n    return 1\n', query: 'Does f.', want: /no docstring/ },
];

test('the query docstring is spliced out of the code by whole lines at the ast positions; other layouts are refused with the reason', async () => {
  const facts = await docstringSpans(cases.map((c) => ({ code: c.code, target: c.target ?? 'f' })));
  cases.forEach((c, i) => {
    const r = removeQueryDocstring(c.code, c.query, facts[i]);
    if (typeof c.want === 'string') assert.deepEqual(r, { removed: true, code: c.want }, c.name);
    else {
      assert.equal(r.removed, false, c.name);
      assert.match((r as { reason: string }).reason, c.want, c.name);
    }
  });
});

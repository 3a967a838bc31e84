import { test } from 'node:test';
import assert from 'node:assert/strict';
import { docstringSpans, docstrings } from '../../activities/python/astFacts.ts';
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
  {
    // A public check-program benchmark writes its prompt so: Python's ast does not call it the module docstring.
    name: 'a prompt string after the import lines (issue 38) goes, the imports stay',
    code: 'import math\nfrom typing import List\n"""\nSum the roots of xs.\n"""\ndef f(xs: List[float]):\n    return sum(map(math.sqrt, xs))\n',
    query: 'Sum the roots of xs.',
    want: 'import math\nfrom typing import List\ndef f(xs: List[float]):\n    return sum(map(math.sqrt, xs))\n',
  },
  { name: 'a string after other code is not a docstring', code: 'x = 1\n"""Does f."""\ndef f():\n    return x\n', query: 'Does f.', want: /no docstring/ },
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

test('the query taken from a docstring after imports is the text the splice removes', async () => {
  const code = 'import re\n\n"""Count the words in s."""\n\ndef count_words(s):\n    return len(re.findall(r"\\w+", s))\n';
  const [facts] = await docstrings([{ code, target: 'count_words' }]);
  assert.equal(facts.docstring, 'Count the words in s.');
  const [span] = await docstringSpans([{ code, target: 'count_words' }]);
  assert.deepEqual(removeQueryDocstring(code, facts.docstring!, span), { removed: true, code: 'import re\n\n\ndef count_words(s):\n    return len(re.findall(r"\\w+", s))\n' });
});

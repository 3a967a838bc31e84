import type { MutationCandidate } from './types.ts';

const WHAT: Record<string, (c: MutationCandidate) => string> = {
  int_constant: (c) => `changed the integer constant ${c.original} to ${c.replacement}`,
  range_bound: (c) => `shifted the range() bound \`${c.original}\` by one to \`${c.replacement}\``,
  slice_bound: (c) => `shifted the slice bound \`${c.original}\` by one to \`${c.replacement}\``,
  index_shift: (c) => `shifted the index \`${c.original}\` by one to \`${c.replacement}\``,
  // A token-only edit that would regroup by precedence is written as the whole node, parenthesised.
  arith_operator: (c) => `replaced the arithmetic operator: \`${c.original}\` became \`${c.replacement}\``,
  bitwise_operator: (c) => `replaced the bitwise operator: \`${c.original}\` became \`${c.replacement}\``,
  aug_operator: (c) => `replaced the augmented assignment \`${c.original}\` with \`${c.replacement}\``,
  bool_operator: (c) => `replaced the boolean connective in \`${c.original}\` (now \`${c.replacement}\`)`,
  swap_builtin: (c) => `called \`${c.replacement}\` instead of \`${c.original}\``,
  swap_method: (c) => `called \`.${c.replacement}\` instead of \`.${c.original}\``,
  swap_call_args: (c) => `swapped the arguments \`${c.original}\` to \`${c.replacement}\``,
  swap_operands: (c) => `swapped the operands of \`${c.original}\` to \`${c.replacement}\``,
  string_digit: (c) => `changed the number ${c.original} written in a string literal to ${c.replacement}`,
  seq_bound: (c) => `dropped the ${c.replacement.endsWith('[1:]') ? 'first' : 'last'} item: \`${c.original}\` became \`${c.replacement}\``,
  arg_shift: (c) => `passed \`${c.replacement}\` instead of \`${c.original}\``,
  result_shift: (c) => `returned \`${c.replacement}\` instead of \`${c.original}\``,
  flip_boolean: (c) => `flipped the boolean constant ${c.original} to ${c.replacement}`,
  regex_quantifier: (c) => `changed the regex quantifier \`${c.original}\` to \`${c.replacement}\` (minimum repetitions moved by one)`,
  regex_anchor: (c) => `removed the regex anchor \`${c.original}\``,
  regex_complement: (c) => (c.original === '^' ? 'removed the negation `^` of a regex character class' : `replaced the regex class \`\\${c.original}\` with its complement \`\\${c.replacement}\``),
  swap_items: (c) => `swapped two items \`${c.original}\` to \`${c.replacement}\``,
  negate_condition: (c) => `negated the condition \`${c.original}\` to \`${c.replacement}\``,
  remove_not: (c) => `removed the negation: \`${c.original}\` became \`${c.replacement}\``,
  remove_conditional: (c) => `removed the conditional block \`${firstLine(c.original)}\``,
  remove_guard: (c) => `removed the early-exit check \`${firstLine(c.original)}\``,
  drop_condition: (c) => `dropped the condition \`${c.original.trim()}\` from a boolean test`,
  flip_comparison: (c) => `flipped the comparison \`${c.original}\` to \`${c.replacement}\``,
  negate_equality: (c) => `negated the equality test \`${c.original}\` to \`${c.replacement}\``,
  negate_identity: (c) => `negated the identity test \`${c.original}\` to \`${c.replacement}\``,
  negate_membership: (c) => `negated the membership test \`${c.original}\` to \`${c.replacement}\``,
  boundary_shift: (c) => `moved the boundary: \`${c.original}\` became \`${c.replacement}\``,
};

function firstLine(text: string): string {
  return text.trim().split('\n')[0].trim();
}

/**
 * A generated bug_description: what changed and where (line number and the canonical's line text), e.g.
 * "off_by_one at line 4: changed the integer constant 1 to 2 in `for i in range(1, n):`".
 */
export function describeMutation(c: MutationCandidate, canonical: string): string {
  const lineText = canonical.split('\n')[c.line - 1]?.trim() ?? '';
  const what = (WHAT[c.operator] ?? ((x: MutationCandidate) => `replaced \`${x.original}\` with \`${x.replacement}\``))(c);
  return `${c.bug_type} at line ${c.line}: ${what} in \`${lineText}\``;
}

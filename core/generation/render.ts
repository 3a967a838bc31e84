/**
 * Fills `{{name}}` placeholders in a locked prompt. Strict both ways: a placeholder without a value and a value
 * without a placeholder are errors, so a renamed variable can never silently send a prompt with a hole in it.
 */
export function renderTemplate(template: string, vars: Readonly<Record<string, string | number>>, label = 'prompt'): string {
  const used = new Set<string>();
  const out = template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_m, name: string) => {
    if (!(name in vars)) throw new Error(`${label}: placeholder {{${name}}} has no value`);
    used.add(name);
    return String(vars[name]);
  });
  const unused = Object.keys(vars).filter((k) => !used.has(k));
  if (unused.length) throw new Error(`${label}: values given for placeholders it does not have: ${unused.join(', ')}`);
  return out;
}

/**
 * The two lint rules of Temporal's TypeScript samples that matter for correctness, checked with the TypeScript
 * compiler's own type checker (no ESLint: one rule each, and the checker is already a dependency):
 *
 * 1. **Workflow code imports no Node built-ins and no activity implementations.** Workflow files run in
 *    Temporal's deterministic sandbox; a value import of `node:fs` or of an activity module there fails at
 *    bundle time at best and breaks replay at worst. Followed transitively through every value import a
 *    workflow file makes inside the project (`import type` is erased and allowed).
 * 2. **No floating promises** anywhere in the project: an expression statement whose value is a promise must be
 *    awaited, returned, `void`-marked or given a rejection handler (`.catch(f)`, `.then(f, g)`), so a
 *    rejection is never dropped.
 *
 * Run: `node --import tsx infra/lint/temporalRules.ts` (exit 1 with one line per finding).
 */
import ts from 'typescript';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Finding {
  file: string;
  line: number;
  rule: 'workflow-import' | 'floating-promise';
  message: string;
}

const BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function loadProgram(root: string): ts.Program {
  const configPath = join(root, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

const at = (sf: ts.SourceFile, node: ts.Node, root: string) => ({
  file: relative(root, sf.fileName),
  line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1,
});

/** Value (non-type-only) module specifiers of a file: imports and re-exports. */
function valueImports(sf: ts.SourceFile): { spec: string; node: ts.Node }[] {
  const out: { spec: string; node: ts.Node }[] = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const clause = st.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) out.push({ spec: st.moduleSpecifier.text, node: st });
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) && !st.isTypeOnly) {
      out.push({ spec: st.moduleSpecifier.text, node: st });
    }
  }
  return out;
}

export function workflowImportFindings(program: ts.Program, root: string): Finding[] {
  const findings: Finding[] = [];
  const wfDir = join(root, 'workflows') + sep;
  const seen = new Set<string>();
  const visit = (sf: ts.SourceFile, via: string[]) => {
    if (seen.has(sf.fileName)) return;
    seen.add(sf.fileName);
    for (const { spec, node } of valueImports(sf)) {
      const chain = [...via, relative(root, sf.fileName)].join(' → ');
      if (BUILTINS.has(spec)) {
        findings.push({ ...at(sf, node, root), rule: 'workflow-import', message: `Node built-in '${spec}' reached from workflow code (${chain})` });
        continue;
      }
      if (!spec.startsWith('.')) continue; // packages: @temporalio/workflow and pure libraries
      const target = resolve(dirname(sf.fileName), spec);
      if (target.startsWith(join(root, 'activities') + sep)) {
        findings.push({ ...at(sf, node, root), rule: 'workflow-import', message: `value import of activity code '${spec}' from workflow code (${chain}): use \`import type\`` });
        continue;
      }
      const next = program.getSourceFile(target);
      if (next) visit(next, [...via, relative(root, sf.fileName)]);
    }
  };
  for (const sf of program.getSourceFiles()) if (sf.fileName.startsWith(wfDir)) visit(sf, []);
  return findings;
}

function isPromiseLike(checker: ts.TypeChecker, type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some((t) => isPromiseLike(checker, t));
  const then = checker.getPropertyOfType(type, 'then');
  if (!then) return false;
  const thenType = checker.getTypeOfSymbol(then);
  return thenType.getCallSignatures().length > 0;
}

/** `.catch(f)` or `.then(f, g)` handles the rejection (what no-floating-promises accepts). */
function handlesRejection(expr: ts.Expression): boolean {
  if (!ts.isCallExpression(expr) || !ts.isPropertyAccessExpression(expr.expression)) return false;
  const name = expr.expression.name.text;
  return (name === 'catch' && expr.arguments.length >= 1) || (name === 'then' && expr.arguments.length >= 2);
}

/** `x = p`, `x ??= p`, …: the promise is stored, not dropped. */
function isAssignment(e: ts.Expression): boolean {
  return ts.isBinaryExpression(e) && e.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && e.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
}

/** node:test's `test()`/`describe()` return promises the runner itself awaits (typescript-eslint's known-safe calls). */
function isTestRegistration(checker: ts.TypeChecker, e: ts.Expression): boolean {
  if (!ts.isCallExpression(e) || !ts.isIdentifier(e.expression)) return false;
  let sym = checker.getSymbolAtLocation(e.expression);
  if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  return (sym?.declarations ?? []).some((d) => /[\\/]@types[\\/]node[\\/]test\.d\.ts$/.test(d.getSourceFile().fileName));
}

export function floatingPromiseFindings(program: ts.Program, root: string): Finding[] {
  const checker = program.getTypeChecker();
  const findings: Finding[] = [];
  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || !sf.fileName.startsWith(root + sep) || sf.fileName.includes(`${sep}node_modules${sep}`)) continue;
    const walk = (node: ts.Node) => {
      if (ts.isExpressionStatement(node)) {
        const e = node.expression;
        const skip =
          ts.isVoidExpression(e) || ts.isAwaitExpression(e) || isAssignment(e) || handlesRejection(e) || isTestRegistration(checker, e);
        if (!skip && isPromiseLike(checker, checker.getTypeAtLocation(e))) {
          findings.push({ ...at(sf, node, root), rule: 'floating-promise', message: `promise neither awaited, returned, handled nor \`void\`-marked: ${e.getText(sf).slice(0, 80)}` });
        }
      }
      ts.forEachChild(node, walk);
    };
    walk(sf);
  }
  return findings;
}

export function lintProject(root: string): Finding[] {
  const program = loadProgram(root);
  return [...workflowImportFindings(program, root), ...floatingPromiseFindings(program, root)];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const findings = lintProject(root);
  for (const f of findings) console.error(`${f.file}:${f.line} ${f.rule}: ${f.message}`);
  if (findings.length) {
    console.error(`temporal lint: ${findings.length} finding(s)`);
    process.exit(1);
  }
  console.error('temporal lint: ok');
}

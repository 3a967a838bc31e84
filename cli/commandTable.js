// The CLI's command table in plain JavaScript: bin/execretrieval.js answers `--help`, `--version`, `help` and an
// unknown command from it without loading tsx, commander or any command's SDKs (those took 2-17 s), and
// cli/entry.ts imports only the module of the command that was named. test/cli/commandTable.test.ts checks
// that every row names the command its module registers, and that every command has a row.

/** One row per top-level command, in help order: name, one-line summary, module under cli/commands/, its register function. */
export const COMMAND_TABLE = [
  { name: 'run', summary: 'Build → embed → score → report in one go (each step is also its own command)', module: 'run.ts', register: 'registerRun' },
  { name: 'doctor', summary: 'Check everything a run needs here, each problem with its fix', module: 'doctor.ts', register: 'registerDoctor' },
  { name: 'bootstrap', summary: 'Install the Python venv (temporal binary) and local models: once, after npm install -g', module: 'bootstrap.ts', register: 'registerBootstrap' },
  { name: 'runs', summary: 'List the runs under runs/: kind, status, stages done, last change', module: 'runs.ts', register: 'registerRuns' },
  { name: 'configs', summary: 'List embedding configurations and whether each can run here', module: 'configs.ts', register: 'registerConfigs' },
  { name: 'import', summary: 'Convert tasks (JSONL, MBPP, release) to the task schema or the release format', module: 'import.ts', register: 'registerImport' },
  { name: 'import-rankings', summary: 'Add a ranked list from any system (TREC run, CSV/TSV/Parquet) to a run as a configuration', module: 'importConfig.ts', register: 'registerImportRankings' },
  { name: 'import-vectors', summary: 'Add vectors computed elsewhere (Parquet/Arrow, .npy) to a run as a configuration', module: 'importConfig.ts', register: 'registerImportVectors' },
  { name: 'retrieve', summary: 'Add a configuration answered by your own search service (retrieval endpoint)', module: 'retrieve.ts', register: 'registerRetrieve' },
  { name: 'rerank', summary: "Add a second stage: a reranker over any configuration's top list", module: 'rerank.ts', register: 'registerRerank' },
  { name: 'validate', summary: 'Run the five-stage validation gate over task files', module: 'validate.ts', register: 'registerValidate' },
  { name: 'build', summary: 'Build an execution-verified benchmark with mechanical distractors (the build stage of run)', module: 'build.ts', register: 'registerBuild' },
  { name: 'embed', summary: 'Embed a built benchmark under each configuration', module: 'embed.ts', register: 'registerEmbed' },
  { name: 'score', summary: 'Rank, execute every top-10 snippet, compute metrics and write the report', module: 'score.ts', register: 'registerScore' },
  { name: 'report', summary: 'Rebuild the report of a scored run (executes nothing)', module: 'report.ts', register: 'registerReport' },
  { name: 'compare', summary: 'Two configurations of a run: differences with intervals and McNemar tests', module: 'compare.ts', register: 'registerCompare' },
  { name: 'compare-runs', summary: 'Two scored runs: paired tests on the same benchmark, side by side otherwise', module: 'compareRuns.ts', register: 'registerCompareRuns' },
  { name: 'similarity', summary: 'Cosine matrix of some texts under one configuration', module: 'similarity.ts', register: 'registerSimilarity' },
  { name: 'generate', summary: 'Durable LLM or mechanical benchmark generation on Temporal (resumable)', module: 'generate.ts', register: 'registerGenerate' },
  { name: 'audit', summary: 'Tokens and cost of a run (generation and embedding)', module: 'audit.ts', register: 'registerAudit' },
  { name: 'repo', summary: 'Repository retrieval evaluation: index, eval, diagnose, CI gate', module: 'repo.ts', register: 'registerRepo' },
  { name: 'cache', summary: 'Inspect, export, verify or repair the caches', module: 'cache.ts', register: 'registerCache' },
  { name: 'serve-embeddings', summary: 'Serve the local embedding models over the OpenAI embeddings API', module: 'serveEmbeddings.ts', register: 'registerServeEmbeddings' },
  { name: 'ui', summary: "Start the local Temporal dev server on the runs' database with its Web UI", module: 'ui.ts', register: 'registerUi' },
];

export const PROGRAM = {
  name: 'execretrieval',
  version: '0.1.0',
  description:
    'Measure whether code retrievers surface code that works (execution-verified benchmarks)\n' +
    'and code from the right place (repository retrieval evaluation).',
};

/** The top-level help: every command with its summary. */
export function topLevelHelp() {
  const w = Math.max(...COMMAND_TABLE.map((c) => c.name.length));
  return [
    `Usage: ${PROGRAM.name} <command> [options]`,
    '',
    PROGRAM.description,
    '',
    'Commands:',
    ...COMMAND_TABLE.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    `  ${'help'.padEnd(w)}  help [command]: this list, or one command's options`,
    '',
    'Options:',
    '  -V, --version  the version number',
    '  -h, --help     this help',
    '',
    `\`${PROGRAM.name} <command> --help\` lists a command's options. Exit codes: 0 done, 1 failed or records`,
    'rejected, 2 bad option or name, 3 no task accepted, 4 generation unfinished, 5 infrastructure fault.',
  ].join('\n');
}

/**
 * The help page that `args` ask for (`score --help`, `repo index -h`): its key in `pages` (cli/helpPages.json,
 * rendered from the commands by cli/helpPages.ts), or null when they ask for none or it has no page. A `--help`
 * after `--` is an argument, not the flag.
 */
export function helpPageKey(args, pages) {
  const end = args.indexOf('--');
  const flags = end < 0 ? args : args.slice(0, end);
  if (!flags.includes('--help') && !flags.includes('-h')) return null;
  const [cmd, sub] = args;
  if (sub !== undefined && Object.hasOwn(pages, `${cmd} ${sub}`)) return `${cmd} ${sub}`;
  return Object.hasOwn(pages, cmd) ? cmd : null;
}

/** Edit distance (insertions, deletions, substitutions), for "did you mean". */
export function editDistance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The valid names closest to `name` (at most `max`): those within a third of the longer name's length by edit
 * distance, or sharing a prefix of 3+ characters with it, nearest first. Empty when nothing is close.
 */
export function nearestNames(name, valid, max = 3) {
  const lower = name.toLowerCase();
  return valid
    .map((v) => ({ v, d: editDistance(lower, v.toLowerCase()) }))
    .filter(({ v, d }) => d <= Math.max(1, Math.floor(Math.max(v.length, name.length) / 3)) || (lower.length >= 3 && (v.toLowerCase().startsWith(lower) || lower.startsWith(v.toLowerCase()))))
    .sort((a, b) => a.d - b.d || (a.v < b.v ? -1 : 1))
    .slice(0, max)
    .map(({ v }) => v);
}

/** `unknown X 'name' (did you mean 'a', 'b'?)`, or the whole list when nothing is near. */
export function unknownNameMessage(what, name, valid) {
  const near = nearestNames(name, valid);
  return near.length
    ? `unknown ${what} '${name}' (did you mean ${near.map((n) => `'${n}'`).join(', ')}?)`
    : `unknown ${what} '${name}' (known: ${valid.join(', ')})`;
}

/**
 * What the plain-JS front end does with argv (process.argv without node and the script): `help` and
 * `version` print and exit 0, `usage` prints one error line and exits 2, `load` hands argv to the command's
 * module (argv rewritten for `help <command>`).
 */
export function route(args) {
  const [first, second] = args;
  if (first === undefined || first === '-h' || first === '--help') return { kind: 'help' };
  if (first === '-V' || first === '--version') return { kind: 'version' };
  const names = COMMAND_TABLE.map((c) => c.name);
  if (first === 'help') {
    if (second === undefined) return { kind: 'help' };
    const row = COMMAND_TABLE.find((c) => c.name === second);
    if (!row) return { kind: 'usage', message: unknownNameMessage('command', second, names) };
    return { kind: 'load', row, args: [second, '--help'] };
  }
  if (first.startsWith('-')) return { kind: 'usage', message: `unknown option '${first}' (the command comes first: ${PROGRAM.name} <command> [options]; see --help)` };
  const row = COMMAND_TABLE.find((c) => c.name === first);
  if (!row) return { kind: 'usage', message: unknownNameMessage('command', first, names) };
  return { kind: 'load', row, args };
}

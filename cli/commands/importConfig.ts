import type { Command } from 'commander';
import { runDirOf } from '../options.ts';
import { importRankings, importVectors, type ImportResult } from '../../activities/scoring/importConfig.ts';
import { RUN_FORMATS, type RunFormat } from '../../activities/importers/runFile.ts';
import { CliError } from '../errors.ts';
import { EXIT_CODES } from '../../activities/faults.ts';

function printResult(r: ImportResult, what: string): void {
  const m = r.manifest;
  console.log(`imported ${what} as configuration ${m.config_id}: ${m.rows} rows, ${m.n_queries} queries${m.covers ? ` (partial: ${r.missing.length} benchmark queries left out; every configuration will be scored on the ${m.n_queries} covered)` : ''}`);
  console.log(`  ${r.dir}`);
  console.log(`next: execretrieval score --run <run> (it is scored, reported, exported and compared like any other configuration)`);
}

const EXIT_HELP = '\nExit code: 0 imported; 2 a bad file (unknown ids, missing queries, duplicate pairs, scores that are not numbers: one line names them) or a bad option, and nothing is written.';

/**
 * `import-rankings` and `import-vectors`: a retriever we do not run ourselves becomes a configuration of a run
 * (activities/scoring/importConfig.ts). "Rankings" is this CLI's word for ranked lists (runs/<id>/rankings/); a
 * "run" is always runs/<id>, so a TREC run file is imported with import-rankings.
 */
export function registerImportRankings(program: Command): void {
  program
    .command('import-rankings')
    .addHelpText('after', '\nExample:\n  $ execretrieval import-rankings --run default --name bm25-again runs/default/export/trec/bm25.run   # any TREC run of the benchmark')
    .description('Add a ranked list made by any other system (TREC run file, CSV/TSV/Parquet of query_id, corpus_id, score[, rank]) to a run as a configuration')
    .requiredOption('--run <id>', 'run id (under runs/) or run directory, whose benchmark the file ranks')
    .argument('<file>', 'TREC run (`qid Q0 docid rank score tag`), .csv, .tsv, .parquet or .arrow')
    .requiredOption('--name <config>', 'configuration id it is scored and reported under')
    .option('--format <format>', `file format (default: from the extension, else trec): ${RUN_FORMATS.join(' | ')}`)
    .option('--partial', 'accept a file that ranks only some benchmark queries: every configuration is then scored on the queries it covers')
    .option('--replace', 'overwrite a configuration of that name')
    .addHelpText('after', '\nItems are ordered by score (a rank column is checked against the scores); exact ties follow the project\'s tie rule, as for every configuration; items the file leaves out rank below every listed one, tied.' + EXIT_HELP)
    .action((file: string, opts: { run: string; name: string; format?: string; partial?: boolean; replace?: boolean }) => {
      if (opts.format && !(RUN_FORMATS as readonly string[]).includes(opts.format)) throw new CliError(`--format ${opts.format}: expected one of ${RUN_FORMATS.join(', ')}`, EXIT_CODES.usage);
      printResult(importRankings({ runDir: runDirOf(opts.run), name: opts.name, file, format: opts.format as RunFormat | undefined, partial: opts.partial, replace: opts.replace }), file);
    });
}

export function registerImportVectors(program: Command): void {
  program
    .command('import-vectors')
    .addHelpText('after', '\nExample:\n  $ execretrieval import-vectors --run default --name static-again runs/default/embeddings/local-static-64/queries.parquet runs/default/embeddings/local-static-64/corpus.parquet')
    .description('Add vectors made elsewhere (Parquet/Arrow with id and vector columns, or .npy with an id list) for the benchmark\'s queries and corpus to a run as a configuration (ranked by cosine)')
    .requiredOption('--run <id>', 'run id (under runs/) or run directory')
    .argument('<files...>', 'one or more .parquet / .arrow files (id, vector), or one .npy with --ids; query and corpus rows are told apart by the benchmark\'s ids')
    .requiredOption('--name <config>', 'configuration id it is scored and reported under')
    .option('--ids <file>', 'for a .npy file: its ids, one per line, in row order')
    .option('--partial', 'accept vectors for only some queries (every corpus item still needs one): every configuration is then scored on the covered queries')
    .option('--replace', 'overwrite a configuration of that name')
    .addHelpText('after', EXIT_HELP)
    .action((files: string[], opts: { run: string; name: string; ids?: string; partial?: boolean; replace?: boolean }) => {
      printResult(importVectors({ runDir: runDirOf(opts.run), name: opts.name, files, ids: opts.ids, partial: opts.partial, replace: opts.replace }), files.join(', '));
    });
}

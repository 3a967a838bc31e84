import type { Command } from 'commander';
import { runDirOf } from '../options.ts';
import { embeddingCachePath, modelRoot, projectRoot} from '../../activities/paths.ts';
import { EmbeddingCache } from '../../activities/embeddings/cache.ts';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { ProviderUnavailableError, type ProviderEnv } from '../../activities/embeddings/types.ts';
import { loadRerankers } from '../../activities/rerank/configs.ts';
import { createLocalScorer } from '../../activities/rerank/localScorer.ts';
import { RERANKERS, type Reranker } from '../../activities/rerank/providers.ts';
import { rerankRun } from '../../activities/rerank/rerankRun.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import type { RerankConfig } from '../../schemas/rerankConfig.ts';
import { CliError } from '../errors.ts';

/** The scorer a reranker entry names; `penv` lets tests point the hosted ones at the fake provider. */
export function scorerFor(r: RerankConfig, penv: ProviderEnv, cache: EmbeddingCache): () => Promise<Reranker> {
  return async () => {
    try {
      if (r.provider === 'local-embedding') {
        const embedding = loadRegistry({ root: projectRoot() }).entries.find((e) => e.config.config_id === r.model)?.config;
        return createLocalScorer(r, embedding, penv, cache);
      }
      return await RERANKERS[r.provider](r, penv);
    } catch (e) {
      // No key, no weights: nothing was sent; the user fixes the environment.
      if (e instanceof ProviderUnavailableError) throw new CliError(e.message, EXIT_CODES.usage);
      throw e;
    }
  };
}

export function registerRerank(program: Command, penv: ProviderEnv = { env: process.env, modelRoot: modelRoot() }): void {
  program
    .command('rerank')
    .addHelpText('after', '\nExample:\n  $ execretrieval rerank --run default --over bm25 local-minilm-scorer   # then: execretrieval score --run default')
    .description("Add a second stage to a run: a reranker reorders a first stage's top list (any configuration: dense, BM25, imported); `score` then scores it beside the first stage")
    .requiredOption('--run <id>', 'run id (under runs/) or run directory')
    .argument('<reranker>', 'reranker id from data/rerank-configs.json (or --config-file)')
    .requiredOption('--over <config>', 'the first-stage configuration whose top list is reranked (e.g. bm25)')
    .option('--depth <n>', 'how many of its top snippets per query are reranked (at least 10)', (v) => Number(v), 20)
    .option('--name <config>', 'configuration id of the result (default: <over>+<reranker>)')
    .option('--replace', 'overwrite a configuration of that name')
    .option('--config-file <files...>', 'extra reranker registry files ({"rerankers": [...]})', [])
    .addHelpText('after', '\nScores are cached by (reranker, query text, snippet): a rerun sends nothing it already has. Run `execretrieval score --run <run>` next; the report shows each reranker beside its first stage with a paired McNemar test on exec@1.\nExit code: 0 done; 2 an unknown reranker or configuration, a missing API key, a bad option.')
    .action(async (id: string, opts: { run: string; over: string; depth: number; name?: string; replace?: boolean; configFile: string[] }) => {
      const runDir = runDirOf(opts.run); // the run first: a missing one is named before anything else
      let rerankers: Map<string, RerankConfig>;
      try {
        rerankers = loadRerankers(projectRoot(), opts.configFile);
      } catch (e) {
        throw new CliError((e as Error).message, EXIT_CODES.usage);
      }
      const r = rerankers.get(id);
      if (!r) throw new CliError(`unknown reranker "${id}" (known: ${[...rerankers.keys()].join(', ')})`, EXIT_CODES.usage);
      const cache = new EmbeddingCache(embeddingCachePath(penv.env));
      try {
        const { dir, manifest } = await rerankRun({
          runDir,
          reranker: r,
          over: opts.over,
          depth: opts.depth,
          name: opts.name,
          replace: opts.replace,
          cache,
          scorer: scorerFor(r, penv, cache),
          log: (m) => console.error(m),
        });
        const s = manifest.rerank!;
        console.log(`reranked the top ${s.depth} of ${s.over} with ${s.reranker_id} as configuration ${manifest.config_id}: ${manifest.n_queries} queries, ${s.pairs} pairs (${s.cached} cached), ${s.requests} requests${s.tokens ? `, ${s.tokens} tokens` : ''}${s.search_units ? `, ${s.search_units} search units` : ''}`);
        console.log(`  ${dir}`);
        console.log('next: execretrieval score --run <run> (the report puts it beside its first stage)');
      } finally {
        cache.close();
      }
    });
}

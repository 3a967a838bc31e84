import type { Command } from 'commander';
import { durationOption, runDirOf } from '../options.ts';
import { join } from 'node:path';
import { projectRoot, stateDir } from '../../activities/paths.ts';
import { EndpointCache } from '../../activities/endpoint/cache.ts';
import { loadEndpoints } from '../../activities/endpoint/configs.ts';
import { DEFAULT_DEADLINE_MS, DEFAULT_REQUEST_TIMEOUT_MS, retrieveRun } from '../../activities/endpoint/retrieve.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { RetrievalEndpoint } from '../../schemas/retrievalEndpoint.ts';
import { CliError } from '../errors.ts';

/** Where endpoint answers are cached (EXECRETRIEVAL_RETRIEVAL_CACHE overrides). */
export const retrievalCachePath = (env: Readonly<Record<string, string | undefined>>) => env.EXECRETRIEVAL_RETRIEVAL_CACHE ?? join(stateDir(), 'retrieval-cache.sqlite');


export function registerRetrieve(program: Command, env: Readonly<Record<string, string | undefined>> = process.env): void {
  program
    .command('retrieve')
    .addHelpText('after', '\nExample:\n  $ execretrieval retrieve --run default http://localhost:8080 --name my-search --index   # your service (docs/own-retriever.md)')
    .description('Add a configuration answered by your own search service: every benchmark query is sent to a retrieval endpoint (POST <url>/search {query_id, query, k} -> {results: [{corpus_id, score}]}), docs/own-retriever.md')
    .requiredOption('--run <id>', 'run id (under runs/) or run directory')
    .argument('<endpoint>', 'an endpoint id from .execretrieval/retrieval-endpoints.json or --config-file, or a base URL (http://host:port)')
    .option('--name <config>', 'configuration id of the result (default: the endpoint id; required with a URL)')
    .option('--k <n>', 'results asked per query (default: the entry\'s k, else 100)', (v) => Number(v))
    .option('--index', 'send the corpus to <url>/index before the first search (a URL endpoint; entries say it with "index": true)')
    .option('--replace', 'overwrite a configuration of that name')
    .option('--config-file <files...>', 'endpoint registry files ({"endpoints": [...]})', [])
    .option('--request-timeout <duration>', 'longest wait for one answer before it is retried (e.g. 500ms, 30s)', durationOption('--request-timeout'), DEFAULT_REQUEST_TIMEOUT_MS)
    .option('--deadline <duration>', 'longest the command waits on the service in all, retries included; then it stops with exit 5, the answers so far cached (e.g. 90s, 10m)', durationOption('--deadline'), DEFAULT_DEADLINE_MS)
    .addHelpText('after', '\nSearches are retried (429, 5xx, connection errors; Retry-After honoured) and cached by (endpoint, URL, k, query text): a rerun sends nothing it has. Run `execretrieval score --run <run>` next.\nExit code: 0 done; 2 an unknown endpoint, a missing URL or key, an answer naming unknown corpus ids (nothing written; such answers are not cached); 5 the service did not answer (refused, 5xx after retries, past --deadline): the line names the URL and the cause.')
    .action(async (ref: string, opts: { run: string; name?: string; k?: number; index?: boolean; replace?: boolean; configFile: string[]; requestTimeout: number; deadline: number }) => {
      const runDir = runDirOf(opts.run); // the run first: a missing one is named before anything else
      let endpoint: RetrievalEndpoint | undefined;
      if (/^https?:\/\//.test(ref)) {
        if (!opts.name) throw new CliError('a URL endpoint needs --name (the configuration id it is scored under)', EXIT_CODES.usage);
        // Answers are cached by URL and k (the fingerprint), so every name given to the same URL shares them.
        endpoint = RetrievalEndpoint.parse({ endpoint_id: 'url', url: ref, index: opts.index ?? false });
      } else {
        let all: Map<string, RetrievalEndpoint>;
        try {
          all = loadEndpoints(projectRoot(), opts.configFile);
        } catch (e) {
          throw new CliError((e as Error).message, EXIT_CODES.usage);
        }
        endpoint = all.get(ref);
        if (!endpoint) throw new CliError(`unknown endpoint "${ref}" (known: ${[...all.keys()].join(', ') || 'none: add one to .execretrieval/retrieval-endpoints.json or pass a URL'})`, EXIT_CODES.usage);
      }
      if (opts.k !== undefined) {
        if (!Number.isInteger(opts.k) || opts.k < 1) throw new CliError(`--k ${opts.k}: expected a positive integer`, EXIT_CODES.usage);
        endpoint = { ...endpoint, k: opts.k };
      }
      if (opts.index) endpoint = { ...endpoint, index: true };
      const cache = new EndpointCache(retrievalCachePath(env));
      try {
        const { dir, manifest } = await retrieveRun({ runDir, endpoint, name: opts.name, replace: opts.replace, env, cache, requestTimeoutMs: opts.requestTimeout, deadlineMs: opts.deadline, log: (m) => console.error(m) });
        const s = manifest.endpoint!;
        console.log(`retrieved the top ${s.k} of ${manifest.n_queries} queries from ${s.url} as configuration ${manifest.config_id}: ${s.requests} searches sent, ${s.cached} cached${s.index_sent ? ', corpus indexed' : ''}${s.empty_answers ? `, ${s.empty_answers} empty answers (ranked all tied)` : ''}`);
        console.log(`  ${dir}`);
        console.log('next: execretrieval score --run <run>');
      } finally {
        cache.close();
      }
    });
}

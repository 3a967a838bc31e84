import type { Command } from 'commander';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { retrieverKind, selectConfigs } from '../../core/embeddings/registry.ts';
import { sparseDotRows } from '../../core/ranking/sparse.ts';
import { cosineMatrix } from '../../core/embeddings/vectors.ts';
import { EmbeddingCache } from '../../activities/embeddings/cache.ts';
import { embeddingCachePath, modelRoot } from '../../activities/paths.ts';
import { embedItems } from '../../activities/embeddings/embedItems.ts';
import { createProvider } from '../../activities/embeddings/providers/index.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { CliError } from '../errors.ts';
import { checkConfigIds } from '../options.ts';

export function registerSimilarity(program: Command): void {
  program
    .command('similarity')
    .description('Print the cosine matrix of the given texts under one configuration (sparse dot products for a learned-sparse one; query-side invocation unless --as document)')
    .addHelpText('after', '\nExample:\n  $ execretrieval similarity --config local-static-64 "reverse a string" "def rev(s): return s[::-1]"')
    .requiredOption('--config <id>', 'configuration id (see `execretrieval configs`)')
    .option('--as <side>', 'query | document', 'query')
    .option('--config-file <file...>', 'extra registry files')
    .option('--json', 'print JSON')
    .argument('<texts...>', 'two or more texts')
    .action(async (texts: string[], opts: { config: string; as: string; configFile?: string[]; json?: boolean }) => {
      if (opts.as !== 'query' && opts.as !== 'document') throw new CliError(`--as must be query or document, got ${opts.as}`, EXIT_CODES.usage);
      if (texts.length < 2) throw new CliError('give at least two texts', EXIT_CODES.usage);
      await checkConfigIds([opts.config], opts.configFile);
      const reg = loadRegistry({ root: PROJECT_ROOT, files: opts.configFile });
      const [config] = selectConfigs(reg.entries, [opts.config]);
      const cache = new EmbeddingCache(embeddingCachePath());
      const penv = { env: process.env, modelRoot: modelRoot() };
      let provider: Awaited<ReturnType<typeof createProvider>> | undefined;
      try {
        const { vectors } = await embedItems(config, opts.as, texts.map((text, i) => ({ id: String(i), text })), {
          cache,
          provider: async () => (provider = await createProvider(config, penv)),
        });
        // A learned-sparse configuration's rows are (term, weight) pairs: its similarity is their sparse dot product.
        const sparse = retrieverKind(config) === 'sparse';
        const m = sparse ? sparseDotMatrix(vectors) : cosineMatrix(vectors);
        if (opts.json) {
          console.log(JSON.stringify({ config_id: config.config_id, side: opts.as, texts, [sparse ? 'sparse_dot' : 'cosine']: m }, null, 2));
          return;
        }
        const w = sparse ? 9 : 7; // sparse dot products run to tens
        texts.forEach((t, i) => console.log(`[${i + 1}] ${t.length > 70 ? `${t.slice(0, 67)}...` : t}`));
        console.log(`      ${texts.map((_, j) => `[${j + 1}]`.padStart(w)).join('')}`);
        m.forEach((row, i) => console.log(`[${i + 1}]`.padEnd(6) + row.map((x) => x.toFixed(4).padStart(w)).join('')));
      } finally {
        await provider?.close?.();
        cache.close();
      }
    });
}

function sparseDotMatrix(vectors: Float32Array[]): number[][] {
  const dim = vectors[0]?.length ?? 0;
  const data = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => data.set(v, i * dim));
  const m = { rows: vectors.length, dim, data };
  const out: number[][] = [];
  sparseDotRows(m, m, (_, row) => out.push([...row]));
  return out;
}

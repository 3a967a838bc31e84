/**
 * What the CLI does to reach Temporal: with TEMPORAL_ADDRESS set, connect to that cluster; unset, start the local
 * dev server on free ports with the persistent database `.execretrieval/temporal.db` (so a rerun resumes what a
 * killed run left), print the Web UI address, and stop the server on `close()`.
 */
import { Client, Connection } from '@temporalio/client';
import { resolveTemporalTarget } from '../../temporal.config.ts';
import { startDevServer, type DevServer } from './devServer.ts';

export interface TemporalSession {
  address: string;
  namespace: string;
  client: Client;
  /** The dev server this session started, or null when it connected to TEMPORAL_ADDRESS. */
  devServer: DevServer | null;
  close(): Promise<void>;
}

export async function openTemporal(opts: {
  env?: Readonly<Record<string, string | undefined>>;
  /** Serve the Web UI when starting the dev server (default true: people want to watch a long run). */
  ui?: boolean;
  /** Dev server database; default `.execretrieval/temporal.db`. */
  dbFile?: string;
  log?: (msg: string) => void;
} = {}): Promise<TemporalSession> {
  const target = resolveTemporalTarget(opts.env ?? process.env);
  const log = opts.log ?? ((m: string) => console.error(m));
  let devServer: DevServer | null = null;
  let address = target.address;
  if (!address) {
    devServer = await startDevServer({ namespace: target.namespace, ui: opts.ui ?? true, dbFile: opts.dbFile, log });
    address = devServer.address;
  }
  try {
    const connection = await Connection.connect({ address });
    const client = new Client({ connection, namespace: target.namespace });
    return {
      address,
      namespace: target.namespace,
      client,
      devServer,
      async close() {
        await connection.close().catch(() => undefined);
        await devServer?.stop();
      },
    };
  } catch (err) {
    await devServer?.stop();
    throw err;
  }
}

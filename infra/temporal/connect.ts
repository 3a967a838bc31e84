/**
 * What the CLI does to reach Temporal: with a cluster configured (TEMPORAL_ADDRESS, or a temporal.toml profile:
 * cluster.ts), connect to it with its credentials; none, start the local
 * dev server on free ports with the persistent database `.execretrieval/temporal.db` (so a rerun resumes what a
 * killed run left), print the Web UI address, and stop the server on `close()`.
 */
import { Client } from '@temporalio/client';
import { connectClient, loadClusterSettings, type ClusterSettings } from './cluster.ts';
import { startDevServer, type DevServer } from './devServer.ts';
import { tracing } from './tracing.ts';

export interface TemporalSession {
  address: string;
  namespace: string;
  /** The settings it connected with; workers in the same process connect with them too (`connectNative`). */
  settings: ClusterSettings;
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
  // Read (and a bad profile or tracing variable refused) before anything is started.
  const target = loadClusterSettings(opts.env ?? process.env);
  const traced = tracing(opts.env ?? process.env);
  const log = opts.log ?? ((m: string) => console.error(m));
  let devServer: DevServer | null = null;
  let address = target.address;
  if (!address) {
    devServer = await startDevServer({ namespace: target.namespace, ui: opts.ui ?? true, dbFile: opts.dbFile, log });
    address = devServer.address;
  }
  try {
    const connection = await connectClient(target, address);
    // Traced (OTEL_* variables: tracing.ts), each workflow the client starts opens the run's trace.
    const client = new Client({ connection, namespace: target.namespace, ...(traced ? { interceptors: { workflow: traced.clientInterceptors } } : {}) });
    return {
      address,
      namespace: target.namespace,
      settings: target,
      client,
      devServer,
      async close() {
        await connection.close().catch(() => undefined);
        await traced?.shutdown().catch(() => undefined);
        await devServer?.stop();
      },
    };
  } catch (err) {
    await devServer?.stop();
    throw err;
  }
}

/**
 * Where the Temporal cluster is and how to authenticate to it, read the way Temporal's own tools read it: the SDK's
 * environment configuration (`@temporalio/envconfig`), i.e. a profile of `temporal.toml` (TEMPORAL_CONFIG_FILE, else
 * the user's config dir; TEMPORAL_PROFILE, else `default`) overridden by TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_GRPC_META_*. The CLI, every worker and `doctor` call this one loader,
 * so they agree on the cluster; no address anywhere means the CLI starts the local dev server.
 */
import http2 from 'node:http2';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { loadClientConfigProfile, toClientOptions } from '@temporalio/envconfig';
import { NativeConnection } from '@temporalio/worker';
import { EXIT_CODES, StopError } from '../../activities/faults.ts';
import { DEFAULT_NAMESPACE } from '../../temporal.config.ts';

export interface ClusterSettings {
  /** host:port of the frontend; null = no cluster configured (the CLI starts the dev server). */
  address: string | null;
  namespace: string;
  /** TLS and API key as the SDK's connections take them (both connection kinds accept the same fields). */
  tls?: ConnectionOptions['tls'];
  apiKey?: string;
  metadata?: Record<string, string>;
  /** Where the settings came from, for doctor and error lines (never a secret). */
  source: string;
  /** How the connection is secured, in words (never a secret). */
  security: string;
}

/** A cluster that cannot be configured or reached: one line, exit 5, nothing started. */
export class ClusterError extends StopError {
  override name = 'ClusterError';
  constructor(message: string) {
    super(message, EXIT_CODES.infra);
  }
}

const defined = (env: Readonly<Record<string, string | undefined>>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));

export function loadClusterSettings(env: Readonly<Record<string, string | undefined>> = process.env): ClusterSettings {
  const vars = defined(env);
  const file = vars.TEMPORAL_CONFIG_FILE;
  const profileName = vars.TEMPORAL_PROFILE ?? 'default';
  let profile;
  try {
    profile = loadClientConfigProfile({ overrideEnvVars: vars, configFileStrict: true });
  } catch (err) {
    throw new ClusterError(`Temporal configuration${file ? ` ${file}` : ''} (profile ${profileName}): ${firstLine(err)}`);
  }
  const fromEnv = Object.keys(vars).filter((k) => /^TEMPORAL_(ADDRESS|NAMESPACE|API_KEY|TLS.*)$/.test(k)).sort();
  const source = [file ? `profile ${profileName} of ${file}` : vars.TEMPORAL_PROFILE ? `profile ${profileName}` : '', fromEnv.length ? fromEnv.join(', ') : '']
    .filter(Boolean).join(' + ') || 'defaults';
  const address = profile.address?.trim() || null;
  let options;
  try {
    options = toClientOptions(profile);
  } catch (err) {
    throw new ClusterError(`Temporal configuration (${source}): ${firstLine(err)}`);
  }
  const tls = options.connectionOptions.tls;
  const secured = !!tls;
  if (!address && (secured || profile.apiKey)) {
    // Credentials without a cluster would otherwise start the local dev server and ignore them: fail closed.
    throw new ClusterError(`Temporal configuration (${source}) has TLS or an API key but no address: set TEMPORAL_ADDRESS or the profile's address`);
  }
  const clientCert = typeof tls === 'object' && tls !== null && !!tls.clientCertPair;
  const security = !secured ? 'plaintext' : [clientCert ? 'mTLS (client certificate)' : 'TLS', profile.apiKey ? 'API key' : ''].filter(Boolean).join(' + ');
  return {
    address,
    namespace: profile.namespace?.trim() || DEFAULT_NAMESPACE,
    ...(secured ? { tls } : {}),
    ...(profile.apiKey ? { apiKey: profile.apiKey } : {}),
    ...(profile.grpcMeta ? { metadata: profile.grpcMeta } : {}),
    source,
    security,
  };
}

/** What both connection kinds take: the address (a dev server's, when the settings have none) and the credentials. */
export function connectionOptions(s: ClusterSettings, address = s.address): { address: string; tls?: ConnectionOptions['tls']; apiKey?: string; metadata?: Record<string, string> } {
  if (!address) throw new ClusterError('no Temporal cluster address (set TEMPORAL_ADDRESS or an address in the temporal.toml profile)');
  // A dev server this process started is plaintext whatever the profile says (loadClusterSettings refused credentials without an address).
  if (address !== s.address) return { address };
  return { address, ...(s.tls !== undefined ? { tls: s.tls } : {}), ...(s.apiKey ? { apiKey: s.apiKey } : {}), ...(s.metadata ? { metadata: s.metadata } : {}) };
}

export const describeCluster = (s: ClusterSettings, address = s.address): string => `${address}/${s.namespace} (${address === s.address ? s.security : 'plaintext'}; ${s.source})`;

/**
 * A client connection whose credentials were checked: Connection.connect alone succeeds against a front that
 * refuses the certificate or key later, call by call. Namespace access is what a run needs, so that is what is asked.
 */
export async function connectClient(s: ClusterSettings, address = s.address): Promise<Connection> {
  await refusedTls(s, address);
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ ...connectionOptions(s, address), connectTimeout: '15 seconds' });
    await connection.workflowService.describeNamespace({ namespace: s.namespace });
    return connection;
  } catch (err) {
    await connection?.close().catch(() => undefined);
    if (err instanceof ClusterError) throw err;
    throw new ClusterError(`cannot reach Temporal at ${describeCluster(s, address)}: ${firstLine(err)}`);
  }
}

/** The workers' connection, with the same one-line failure. */
export async function connectNative(s: ClusterSettings, address = s.address): Promise<NativeConnection> {
  await refusedTls(s, address);
  try {
    return await NativeConnection.connect(connectionOptions(s, address));
  } catch (err) {
    if (err instanceof ClusterError) throw err;
    throw new ClusterError(`cannot reach Temporal at ${describeCluster(s, address)}: ${firstLine(err)}`);
  }
}

/**
 * A TLS handshake refused (an unknown CA, a wrong server name, a client certificate the cluster does not accept):
 * the SDK's client only says "Failed to connect before the deadline" after its timeout, so the handshake is tried
 * first on its own, over HTTP/2 as gRPC speaks it, and its own words become the line. The server's first SETTINGS
 * frame means it accepted this client (with TLS 1.3 a refused certificate is an alert after the handshake); no
 * answer in `timeoutMs` leaves the verdict to the real connection.
 */
async function refusedTls(s: ClusterSettings, address: string | null, timeoutMs = 10_000): Promise<void> {
  const tls = s.tls;
  if (!address || address !== s.address || !tls) return;
  const o = typeof tls === 'object' ? tls : {};
  const reason = await new Promise<string | null>((resolve) => {
    const session = http2.connect(`https://${address}`, {
      ...(o.serverRootCACertificate ? { ca: Buffer.from(o.serverRootCACertificate) } : {}),
      ...(o.clientCertPair ? { cert: Buffer.from(o.clientCertPair.crt), key: Buffer.from(o.clientCertPair.key) } : {}),
      ...(o.serverNameOverride ? { servername: o.serverNameOverride } : {}),
    });
    let settled = false;
    const done = (r: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    session.once('remoteSettings', () => done(null));
    // A refused client certificate reaches Node's HTTP/2 client as a bare close or, when the server's reset wins the
    // race with the alert, as ECONNRESET/EPIPE (the alert's words are not surfaced either way): both say the same.
    const closed = (how: string) => `TLS: the server closed the connection before its first HTTP/2 frame${how}: ${o.clientCertPair ? 'it did not accept the client certificate' : 'it may require a client certificate (none is configured)'}`;
    let handshaken = false; // 'connect' comes once the TLS handshake is done
    session.once('connect', () => { handshaken = true; });
    session.once('error', (e: NodeJS.ErrnoException) =>
      done(handshaken && (e.code === 'ECONNRESET' || e.code === 'EPIPE') ? closed(` (${e.code})`) : `TLS: ${firstLine(e)}`));
    session.once('close', () => done(closed('')));
  });
  if (reason) throw new ClusterError(`cannot reach Temporal at ${describeCluster(s, address)}: ${reason}`);
}

/** The error and its causes (the SDK wraps the server's answer, e.g. UNAUTHENTICATED, as `cause`), on one line. */
function firstLine(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const line = (e instanceof Error ? e.message : String(e)).split('\n').map((l) => l.trim()).find(Boolean);
    if (line && !parts.some((p) => p.includes(line))) parts.push(line);
  }
  return parts.join(': ') || 'unknown error';
}

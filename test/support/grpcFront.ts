/**
 * A TLS-terminating gRPC front of the local dev server, standing in for a secured cluster (a self-hosted one with
 * mTLS, or Temporal Cloud with an API key): it serves HTTP/2 over TLS with a certificate from a CA made here with
 * openssl, requires a client certificate signed by that CA and/or `authorization: Bearer <key>` on every call, and
 * forwards what it accepts to the dev server in plaintext, trailers included. A call it refuses is answered
 * UNAUTHENTICATED, as a cluster answers one.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface Pki {
  dir: string;
  /** The CA that signs the server's certificate and the good client's. */
  ca: string;
  serverCert: string;
  serverKey: string;
  /** Signed by the CA. */
  clientCert: string;
  clientKey: string;
  /** Self-signed: a certificate the front has never trusted. */
  strangerCert: string;
  strangerKey: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

/** A CA, a server certificate for `serverName` (and 127.0.0.1), a client certificate it signed, and a stranger's. */
export function makePki(dir: string, serverName = 'temporal.test'): Pki {
  const p = (f: string) => join(dir, f);
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=test CA', '-keyout', 'ca.key', '-out', 'ca.pem']);
  const leaf = (name: string, cn: string, ext: string) => {
    writeFileSync(p(`${name}.ext`), ext);
    openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-keyout', `${name}.key`, '-out', `${name}.csr`]);
    openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.pem`]);
  };
  leaf('server', serverName, `subjectAltName=DNS:${serverName},IP:127.0.0.1\nextendedKeyUsage=serverAuth\n`);
  leaf('client', 'worker', 'extendedKeyUsage=clientAuth\n');
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=stranger', '-keyout', 'stranger.key', '-out', 'stranger.pem']);
  return {
    dir, ca: p('ca.pem'), serverCert: p('server.pem'), serverKey: p('server.key'), clientCert: p('client.pem'), clientKey: p('client.key'),
    strangerCert: p('stranger.pem'), strangerKey: p('stranger.key'),
  };
}

export interface GrpcFront {
  address: string;
  /** Calls forwarded to the dev server (accepted credentials). */
  forwarded: number;
  /** Calls answered UNAUTHENTICATED (a missing or wrong key). */
  refused: number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([':method', ':path', ':scheme', ':authority', ':status', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade']);
const pass = (h: http2.IncomingHttpHeaders): http2.OutgoingHttpHeaders => Object.fromEntries(Object.entries(h).filter(([k]) => !HOP_BY_HOP.has(k)));

export async function startGrpcFront(o: { upstream: string; pki: Pki; requireClientCert?: boolean; apiKey?: string }): Promise<GrpcFront> {
  const upstream = http2.connect(`http://${o.upstream}`);
  upstream.on('error', () => undefined);
  const front: GrpcFront = { address: '', forwarded: 0, refused: 0, close: async () => undefined };
  const server = http2.createSecureServer({
    cert: readFileSync(o.pki.serverCert),
    key: readFileSync(o.pki.serverKey),
    ca: readFileSync(o.pki.ca),
    // A client without a certificate the CA signed fails the handshake: nothing reaches the dev server.
    requestCert: !!o.requireClientCert,
    rejectUnauthorized: !!o.requireClientCert,
    allowHTTP1: false,
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    if (o.apiKey !== undefined && headers.authorization !== `Bearer ${o.apiKey}`) {
      front.refused++;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'invalid API key' }, { endStream: true });
      return;
    }
    front.forwarded++;
    const up = upstream.request({ ...pass(headers), ':method': 'POST', ':path': headers[':path'] }, { endStream: false });
    up.on('error', () => stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    stream.on('close', () => up.close());
    let trailers: http2.OutgoingHttpHeaders = {};
    up.on('trailers', (t) => (trailers = pass(t)));
    up.on('response', (h) => {
      // A trailers-only answer (a gRPC error) carries its status in the headers and no body.
      if (h['grpc-status'] !== undefined) return stream.respond({ ...pass(h), ':status': 200 }, { endStream: true });
      stream.respond({ ...pass(h), ':status': h[':status'] ?? 200 }, { waitForTrailers: true });
      up.pipe(stream);
    });
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    stream.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  front.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  front.close = async () => {
    for (const s of sessions) s.destroy();
    upstream.destroy();
    await new Promise((r) => server.close(r));
  };
  return front;
}

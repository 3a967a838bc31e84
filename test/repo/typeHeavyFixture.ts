/**
 * A type-heavy TypeScript declaration file, generated: the shapes of a web framework's public types (a long
 * instance interface of overloaded route and hook methods, type aliases, generic interfaces, namespaces, a
 * `declare module` augmentation, `declare global`, enums, const enums, overloaded functions and an
 * object-literal API), written for this project (shapes, not anyone's file). `methods` scales the long
 * interface past the chunk limits so it is cut into parts.
 */
export function typeHeavySource(methods = 40): string {
  const verbs = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all'];
  const out: string[] = [];
  out.push(`import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/** Anything a handler may send back. */
export type Payload = string | Buffer | Readable | Record<string, unknown> | null;

/** The shape of a route's generic parameters. */
export type RouteGeneric = {
  Body?: unknown;
  Querystring?: unknown;
  Params?: unknown;
  Headers?: unknown;
  Reply?: unknown;
};

export type HookName =
  | 'onRequest'
  | 'preParsing'
  | 'preValidation'
  | 'preHandler'
  | 'onSend'
  | 'onResponse';

export type Handler<G extends RouteGeneric = RouteGeneric> = (
  this: AppInstance,
  request: AppRequest<G>,
  reply: AppReply<G>,
) => Payload | Promise<Payload>;

/** Log levels, lowest first. */
export enum LogLevel {
  Trace = 10,
  Debug = 20,
  Info = 30,
  Warn = 40,
  Error = 50,
}

export const enum ContentKind {
  Json = 'application/json',
  Text = 'text/plain',
}

export interface AppRequest<G extends RouteGeneric = RouteGeneric> {
  raw: IncomingMessage;
  body: G['Body'];
  query: G['Querystring'];
  params: G['Params'];
  headers: G['Headers'] & Record<string, string | string[] | undefined>;
}

export interface AppReply<G extends RouteGeneric = RouteGeneric> {
  raw: ServerResponse;
  code(statusCode: number): AppReply<G>;
  header(name: string, value: string): AppReply<G>;
  send(payload?: G['Reply']): AppReply<G>;
}
`);
  // The long interface: every method overloaded three ways, with a doc comment on each overload.
  out.push('/** A running application: routes, hooks, decorators, plugins. */');
  out.push('export interface AppInstance<Server = unknown> {');
  out.push('  server: Server;');
  out.push('  prefix: string;');
  for (let i = 0; i < methods; i++) {
    const verb = verbs[i % verbs.length];
    const name = i < verbs.length ? verb : `${verb}Route${i}`;
    out.push(`
  /**
   * Registers a ${verb.toUpperCase()} route (form ${i}): path and handler.
   */
  ${name}<G extends RouteGeneric = RouteGeneric>(path: string, handler: Handler<G>): AppInstance<Server>;
  /** Path, options and handler. */
  ${name}<G extends RouteGeneric = RouteGeneric>(
    path: string,
    opts: { schema?: unknown; prefixTrailingSlash?: 'slash' | 'no-slash' | 'both' },
    handler: Handler<G>,
  ): AppInstance<Server>;
  /** Options only (the handler inside). */
  ${name}<G extends RouteGeneric = RouteGeneric>(path: string, opts: { handler: Handler<G> }): AppInstance<Server>;`);
  }
  out.push(`
  addHook(name: 'onRequest', hook: Handler): AppInstance<Server>;
  addHook(name: 'onSend', hook: (payload: Payload) => Payload): AppInstance<Server>;
  addHook(name: HookName, hook: (...args: unknown[]) => unknown): AppInstance<Server>;
}
`);
  out.push(`/** Errors the framework throws, by code. */
export namespace Errors {
  export interface AppError extends Error {
    code: string;
    statusCode?: number;
  }
  export type ErrorCode = 'ERR_NOT_FOUND' | 'ERR_BAD_BODY' | 'ERR_TIMEOUT';
  export function isAppError(e: unknown): e is AppError {
    return typeof e === 'object' && e !== null && 'code' in e;
  }
}

declare namespace Internal {
  interface Scheduler {
    schedule(task: () => void): void;
  }
  const version: string;
}

declare module 'node:http' {
  interface IncomingMessage {
    /** Set by the framework once the route is matched. */
    routeOptions?: { url: string; method: string };
  }
}

declare global {
  interface Window {
    __APP_STATE__?: Record<string, unknown>;
  }
}

/** Creates an application; overloaded on whether HTTP/2 is on. */
export declare function createApp(opts: { http2: true }): AppInstance<'http2'>;
export declare function createApp(opts?: { http2?: false }): AppInstance<'http1'>;

export function defineRoute<G extends RouteGeneric>(path: string, handler: Handler<G>): { path: string; handler: Handler<G> };
export function defineRoute<G extends RouteGeneric>(route: { path: string; handler: Handler<G> }): { path: string; handler: Handler<G> };
export function defineRoute(a: unknown, b?: unknown) {
  return typeof a === 'string' ? { path: a, handler: b } : a;
}

/** The object-literal API most users import. */
export const app = {
  listen(port: number): Promise<void> {
    return Promise.resolve(void port);
  },
  close(): Promise<void> {
    return Promise.resolve();
  },
  version: '1.0.0',
};

export default createApp;
`);
  return out.join('\n');
}

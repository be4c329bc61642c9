import type { Authenticate, Domain, DomainEvent, Principal, Storage } from '../../src/index.js';
import {
  createDomain,
  createMemoryEventBus,
  createOutboxRelay,
  createRuntime,
  SwitchboardError,
} from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { createRestVersions, type RestConfig } from '../../src/rest/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { countingIds, type ManualClock, manualClock } from '../support/clock.js';
import { EVERY_SCOPE } from '../support/scopes.js';

const allScopes = EVERY_SCOPE;

/**
 * A test authenticate: `Bearer admin` has every scope, `Bearer scopes:a,b` only those, `Bearer user:<id>`
 * is a signed-in user with every CRM and chat scope. Anything else is refused like a real guard would.
 */
export const testAuthenticate: Authenticate = async (request) => {
  const header = request.headers.get('authorization');
  if (!header) throw new SwitchboardError('unauthorized', 'Send a bearer token.');
  const token = /^Bearer (.+)$/.exec(header)?.[1] ?? '';
  if (token === 'admin') return principal({ subject: 'admin', scopes: allScopes });
  if (token.startsWith('scopes:')) {
    return principal({ subject: token, scopes: new Set(token.slice(7).split(',').filter(Boolean)) });
  }
  if (token.startsWith('user:')) {
    const userId = token.slice(5);
    return { kind: 'user', subject: userId, userId, scopes: allScopes };
  }
  throw new SwitchboardError('unauthorized', 'The access token is invalid or expired.');
};

function principal(fields: Pick<Principal, 'subject' | 'scopes'>): Principal {
  return { kind: 'service', ...fields };
}

export interface RestServer {
  readonly url: string;
  readonly domain: Domain;
  readonly storage: Storage;
  readonly clock: ManualClock;
  readonly server: NodeServer;
  /** Events published so far (the outbox is flushed first). */
  events(): Promise<DomainEvent[]>;
  /** `fetch` against the server as `Bearer admin` unless `token` (or `null` for none) is given. */
  call(path: string, init?: RequestInit & { token?: string | null; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The REST block on its own (domain, memory storage, outbox relay → bus) on a real node:http server on
 * loopback; requests outside every mount get a plain 404.
 */
export async function startRestServer(
  rest: RestConfig = {},
  storage: Storage = createMemoryStorage(),
): Promise<RestServer> {
  const clock = manualClock();
  const bus = createMemoryEventBus();
  const runtime = createRuntime({ storage, clock, ids: countingIds() });
  const relay = createOutboxRelay(runtime, { bus });
  const domain = createDomain(runtime);
  const { versions, ...options } = rest;
  const mounts = createRestVersions(
    runtime,
    { domain, authenticate: testAuthenticate, ...options },
    versions,
  );
  const fetchHandler = async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    const mount = mounts.find(({ prefix }) => pathname === prefix || pathname.startsWith(`${prefix}/`));
    return mount ? mount.handle(request) : new Response('not mounted', { status: 404 });
  };
  const published: DomainEvent[] = [];
  bus.subscribe((event) => {
    published.push(event);
  });
  const server = await serve({ fetch: fetchHandler, port: 0, shutdownSignals: [] });
  return {
    url: server.url,
    domain,
    storage,
    clock,
    server,
    async events() {
      await relay.flush();
      return published;
    },
    call(path, init = {}) {
      const { token = 'admin', json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
      let body = rest.body;
      if (json !== undefined) {
        body = JSON.stringify(json);
        if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      }
      return fetch(`${server.url}${path}`, { ...rest, headers, body });
    },
    async close() {
      await server.close();
      await relay.stop();
    },
  };
}

/** Creates a client through the interface and returns its JSON. */
export async function createClient(
  api: RestServer,
  fields: Record<string, unknown>,
): Promise<Record<string, unknown> & { id: string }> {
  const response = await api.call('/api/v1/clients', { method: 'POST', json: fields });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown> & { id: string };
}

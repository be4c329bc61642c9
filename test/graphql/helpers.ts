import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { Principal } from '../../src/core/auth.js';
import { SwitchboardError } from '../../src/core/errors.js';
import { createMemoryEventBus, type EventBus } from '../../src/core/event-bus.js';
import type { Storage } from '../../src/core/storage/index.js';
import { type NodeServer, serve } from '../../src/node/serve.js';
import { type GraphQLWebSocketRouteOptions, graphqlWebSocketRoute } from '../../src/node/websocket.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  createSwitchboard,
  type Switchboard,
  type SwitchboardOptions,
} from '../../src/switchboard/switchboard.js';
import { EVERY_SCOPE } from '../support/scopes.js';

const everything = EVERY_SCOPE;

/**
 * Test credentials: `Bearer service` has every scope, `Bearer scopes:a,b` only those, `Bearer user:<id>`
 * acts for that client with every scope. Anything else is unauthorized.
 */
export async function testAuthenticate(request: Request): Promise<Principal> {
  const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
  if (token === 'service') return { kind: 'service', subject: 'svc', scopes: everything };
  if (token.startsWith('scopes:'))
    return { kind: 'service', subject: 'svc', scopes: new Set(token.slice(7).split(',').filter(Boolean)) };
  if (token.startsWith('user:'))
    return { kind: 'user', subject: token.slice(5), userId: token.slice(5), scopes: everything };
  throw new SwitchboardError('unauthorized', 'Send a valid bearer token.');
}

export interface TestServer {
  readonly url: string;
  readonly wsUrl: string;
  readonly switchboard: Switchboard;
  readonly storage: Storage;
  /** POSTs a GraphQL request as `token` and returns status and parsed body. */
  gql(query: string, variables?: Record<string, unknown>, token?: string): Promise<GqlResult>;
  /** A graphql-ws client on loopback. */
  ws(token?: string | null): WsClient;
  close(): Promise<void>;
}

export interface GqlResult {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected freely
  readonly body: any;
}

export async function startServer(
  options: SwitchboardOptions = {},
  route: GraphQLWebSocketRouteOptions = {},
): Promise<TestServer> {
  const storage = options.storage ?? createMemoryStorage();
  const switchboard = createSwitchboard({ authenticate: testAuthenticate, rest: false, ...options, storage });
  switchboard.start();
  const websockets = switchboard.graphqlWebSocket
    ? [graphqlWebSocketRoute(switchboard.graphqlWebSocket, route)]
    : [];
  const server: NodeServer = await serve({
    fetch: switchboard.fetch,
    port: 0,
    shutdownSignals: [],
    websockets,
    onShutdown: () => switchboard.close(),
  });
  const url = `${server.url}/graphql`;
  const clients: WsClient[] = [];
  return {
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    switchboard,
    storage,
    async gql(query, variables, token = 'service') {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
    ws(token = 'service') {
      const client = createClient({
        url: url.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: false,
        connectionParams: token === null ? {} : { Authorization: `Bearer ${token}` },
      });
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.dispose()));
      await server.close();
    },
  };
}

/** Resolves with the next `count` results of a subscription; rejects on a subscription error. */
export function collect<T>(client: WsClient, query: string, count: number): Promise<T[]> {
  const items: T[] = [];
  return new Promise<T[]>((resolve, reject) => {
    const stop = client.subscribe<T>(
      { query },
      {
        next: (value) => {
          items.push(value as T);
          if (items.length === count) {
            stop();
            resolve(items);
          }
        },
        error: reject,
        complete: () => resolve(items),
      },
    );
  });
}

/** A memory bus that tells when listeners subscribe, so tests publish only once a subscriber listens. */
export function observedBus(): {
  bus: EventBus;
  listeners(count: number): Promise<void>;
  none(): Promise<void>;
  /** Listeners subscribed now. */
  count(): number;
} {
  const bus = createMemoryEventBus();
  let current = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const idle: (() => void)[] = [];
  const wrapped: EventBus = {
    publish: (event) => bus.publish(event),
    subscribe(listener, options) {
      const stop = bus.subscribe(listener, options);
      current++;
      for (const waiter of waiters.filter((w) => w.count <= current)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      return () => {
        current--;
        stop();
        if (current === 0) for (const resolve of idle.splice(0)) resolve();
      };
    },
  };
  return {
    bus: wrapped,
    listeners: (count) =>
      count <= current ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    none: () => (current === 0 ? Promise.resolve() : new Promise((resolve) => idle.push(resolve))),
    count: () => current,
  };
}

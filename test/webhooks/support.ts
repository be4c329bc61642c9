import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import {
  createRuntime,
  createSwitchboard,
  type DomainEvent,
  type RuntimeOptions,
  type Switchboard,
  trustEveryone,
} from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/serve.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  createWebhookAdmin,
  createWebhookDispatcher,
  createWebhookFanOut,
  type WebhookAdmin,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from '../../src/webhooks/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { countingIds, type ManualClock, manualClock } from '../support/clock.js';

const servers: NodeServer[] = [];
const dispatchers: WebhookDispatcher[] = [];
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.stop({ graceMs: 0 })));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/**
 * The adapters a test file runs each test on, each test on a store of its own: a new memory store, or
 * the file's PostgreSQL database emptied (made before the file's tests, dropped after them).
 */
export function eachAdapter(): readonly (readonly [string, () => Promise<Storage>])[] {
  let db: TestDatabase | undefined;
  let postgres: Storage | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    postgres = await db.storage();
  });
  afterAll(() => db?.drop());
  return [
    ['memory', async () => createMemoryStorage()],
    [
      'PostgreSQL',
      async () => {
        await db!.truncate();
        return postgres!;
      },
    ],
  ];
}

/** A real HTTP server on a loopback port, closed after the test. */
export async function listen(fetch: (request: Request) => Promise<Response>): Promise<NodeServer> {
  const server = await serve({ fetch, port: 0, shutdownSignals: [], drainTimeoutMs: 100 });
  servers.push(server);
  return server;
}

export interface Received {
  readonly headers: Headers;
  readonly body: string;
  /** The injected clock's time when the request arrived. */
  readonly at: number;
}

/**
 * A receiver that records every request and answers from a script: each call takes the next
 * answer, the last one repeats.
 */
export async function scriptedReceiver(
  clock: ManualClock,
  script: readonly ((request: Request) => Response | Promise<Response>)[] = [() => new Response('ok')],
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = await listen(async (request) => {
    received.push({ headers: request.headers, body: await request.text(), at: clock.now() });
    const answer = script[Math.min(received.length - 1, script.length - 1)]!;
    return answer(request);
  });
  return { url: `${server.url}/hooks`, received };
}

export interface Harness {
  readonly storage: Storage;
  readonly clock: ManualClock;
  readonly admin: WebhookAdmin;
  fanOut(event: DomainEvent): Promise<void>;
  /** A dispatcher on the harness's runtime; the runtime parts given (storage, timers, fetch, …) replace its own. */
  dispatcher(options?: WebhookDispatcherOptions & Partial<RuntimeOptions>): WebhookDispatcher;
}

/** Memory storage, a manual clock, no jitter, loopback allowed: the sender side, ready to drive. */
export function harness(storage: Storage = createMemoryStorage()): Harness {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const ids = countingIds();
  const outbound = { allowHttp: true, allowPrivateAddresses: true };
  const runtime = createRuntime({ storage, clock, ids });
  const fanOut = createWebhookFanOut(runtime);
  return {
    storage,
    clock,
    // The events here are written by hand, as v1 records; api-versions.test.ts sends real ones in each version.
    admin: createWebhookAdmin(runtime, { outbound, apiVersion: 1 }),
    fanOut: (event) => fanOut([event]),
    dispatcher(options = {}) {
      const {
        storage: given,
        clock: givenClock,
        ids: givenIds,
        timers,
        logger,
        telemetry,
        fetch,
        ...rest
      } = options;
      const own = createRuntime({
        storage: given ?? storage,
        clock: givenClock ?? clock,
        ids: givenIds ?? ids,
        ...(timers ? { timers } : {}),
        ...(logger ? { logger } : {}),
        ...(telemetry ? { telemetry } : {}),
        ...(fetch ? { fetch } : {}),
      });
      const dispatcher = createWebhookDispatcher(own, {
        outbound,
        random: () => 0.5,
        timeoutMs: 2_000,
        ...rest,
      });
      dispatchers.push(dispatcher);
      return dispatcher;
    },
  };
}

let n = 0;
export function orderEvent(overrides: Partial<DomainEvent> = {}): DomainEvent {
  n++;
  return {
    id: `evt_test_${n}`,
    type: 'order.shipped',
    occurredAt: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    data: { id: `ord_${n}`, status: 'shipped', customerEmail: 'zoë@example.com' },
    ...overrides,
  };
}

/**
 * A switchboard over memory storage on loopback that trusts every caller and may send to loopback
 * receivers, with its REST API (`api('/webhook-endpoints')`) and a way to register an endpoint. The
 * caller closes the switchboard (pushed to `started`).
 */
export async function webhookApi(started: Switchboard[], pollIntervalMs = 50) {
  const switchboard = createSwitchboard({
    authenticate: trustEveryone,
    webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true }, pollIntervalMs },
  });
  started.push(switchboard);
  const server = await listen(switchboard.fetch);
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...init.headers },
    });
  const register = async (url: string, eventTypes: string[]) => {
    const response = await api('/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url, eventTypes }),
    });
    return (await response.json()) as { id: string; secret: string };
  };
  return { switchboard, api, register };
}

/**
 * The event feed over loopback HTTP (`GET /api/v2/events`), on memory and on PostgreSQL: pages in commit
 * order, the webhooks' payloads, scopes and tenants, cursors refused or expired, and Server-Sent Events
 * that resume exactly after `Last-Event-ID`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/index.js';
import {
  BUILT_IN_RESOURCES,
  CORE_RESOURCES,
  createSwitchboard,
  type Switchboard,
  SwitchboardError,
} from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createPostgresStorage } from '../../src/storage/postgres/index.js';
import { versionedPayloads } from '../../src/webhooks/payload.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { type SseFrame, sseFrames } from '../support/sse.js';
import { testAuthenticate } from './support.js';

interface Item {
  event: string;
  event_id: string;
  data: Record<string, unknown>;
  cursor: string;
}
interface Page {
  items: Item[];
  next: string;
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await createPostgresStorage({ pool: db.pool }).migrate();
});
afterAll(() => db?.drop());

const adapters: [string, () => Promise<Storage>][] = [
  ['memory', async () => createMemoryStorage()],
  [
    'postgres',
    async () => {
      await db.truncate();
      return createPostgresStorage({ pool: db.pool });
    },
  ],
];

describe.each(adapters)('the event feed on %s', (_name, makeStorage) => {
  let switchboard: Switchboard;
  let server: NodeServer;
  let storage: Storage;

  const start = async (): Promise<void> => {
    storage = await makeStorage();
    switchboard = createSwitchboard({
      storage,
      authenticate: testAuthenticate,
      rateLimits: false,
      console: false,
      rest: { versions: [{ basePath: '/api/v2', apiVersion: 2 }] },
    });
    server = await serve({ fetch: switchboard.fetch, port: 0 });
  };
  afterEach(async () => {
    await server?.close();
    await switchboard?.close();
  });

  const get = (path: string, init: { token?: string | null; headers?: Record<string, string> } = {}) =>
    fetch(`${server.url}/api/v2${path}`, {
      headers: {
        ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? 'admin'}` }),
        ...init.headers,
      },
    });
  const page = async (path: string, token?: string): Promise<Page> => {
    const response = await get(path, { token });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as Page;
  };
  const client = (name: string) =>
    switchboard.domain.clients.create({ name, email: `${name.toLowerCase()}@example.com` });

  it('answers pages in commit order, each going on from the last one’s next', async () => {
    await start();
    const made = [await client('Ada'), await client('Grace'), await client('Joan')];
    const first = await page('/events?limit=2');
    expect(first.items.map((i) => i.data.id)).toEqual([made[0]!.id, made[1]!.id]);
    const second = await page(`/events?limit=2&after=${first.next}`);
    expect(second.items.map((i) => i.data.id)).toEqual([made[2]!.id]);
    const third = await page(`/events?after=${second.next}`);
    expect(third).toEqual({ items: [], next: second.next });
    // An item's cursor reads on after it, as `next` does after the page.
    expect((await page(`/events?after=${first.items[0]!.cursor}`)).items[0]!.data.id).toBe(made[1]!.id);
  });

  it('carries what a webhook pinned to the same version is sent, and filters with webhook patterns', async () => {
    await start();
    const ada = await client('Ada');
    const order = await switchboard.domain.orders.create({
      clientId: ada.id,
      total: '12.50',
      currency: 'EUR',
    });
    const { items } = await page('/events?types=order.*');
    expect(items.map((i) => i.event)).toEqual(['order.created']);
    const { cursor, ...body } = items[0]!;
    const [event] = (await storage.outbox.read({ limit: 10, types: ['order.created'] })).events;
    const payloadOf = versionedPayloads([...CORE_RESOURCES, ...BUILT_IN_RESOURCES]);
    expect(body).toEqual(JSON.parse(payloadOf(event!.event, 2)));
    expect(body.data).toMatchObject({ id: order.id, total: { amount: '12.50', currency: 'EUR' } });
    expect((await page('/events?types=client.created,order.*')).items).toHaveLength(2);
  });

  it('shows a signed-in user only their own client’s events', async () => {
    await start();
    const [ada, grace] = [await client('Ada'), await client('Grace')];
    await switchboard.domain.orders.create({ clientId: ada.id, total: '1.00', currency: 'EUR' });
    await switchboard.domain.orders.create({ clientId: grace.id, total: '2.00', currency: 'EUR' });
    const mine = await page('/events', `user:${ada.id}`);
    expect(mine.items.map((i) => i.event)).toEqual(['client.created', 'order.created']);
    expect(mine.items.every((i) => JSON.stringify(i).includes(ada.id))).toBe(true);
    expect(JSON.stringify(mine)).not.toContain(grace.id);
  });

  it('refuses without credentials, without any readable type, and with bad input', async () => {
    await start();
    expect((await get('/events', { token: null })).status).toBe(401);
    const refused = await get('/events?types=order.*', { token: 'scopes:crm.clients.read' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'forbidden' });
    // What the caller may read of `*`: the clients' events only.
    expect((await get('/events', { token: 'scopes:crm.clients.read' })).status).toBe(200);
    for (const query of ['limit=0', 'limit=101', 'after=nope', 'after=cDEyMw%3D%3D', 'types=parcel.*']) {
      const response = await get(`/events?${query}`);
      expect(response.status, query).toBe(400);
      expect((await response.json()) as { code: string }).toMatchObject({
        code: expect.stringMatching(/^(bad_request|validation_failed)$/),
      });
    }
  });

  it('reads the webhook module’s own events with admin.webhooks.read only', async () => {
    await start();
    const disabled = {
      id: 'evt_disabled_1',
      type: 'webhook_endpoint.disabled',
      occurredAt: new Date().toISOString(),
      data: { endpointId: 'whe_1', reason: 'failing' },
    };
    await storage.outbox.append(disabled);
    const types = '/events?types=webhook_endpoint.*';
    expect((await get(types, { token: 'scopes:crm.clients.read' })).status).toBe(403);
    const { items } = await page(types, 'scopes:admin.webhooks.read');
    expect(items.map((i) => [i.event, i.event_id])).toEqual([['webhook_endpoint.disabled', disabled.id]]);
    expect(items[0]!.data).toEqual(disabled.data);
  });

  it('answers 410 naming the oldest cursor once the sweep removed the events after a cursor', async () => {
    await start();
    await client('Ada');
    await client('Grace');
    const first = await page('/events?limit=1');
    await switchboard.relay.flush();
    await storage.sweep!({ now: Date.now() + 31 * 86_400_000 });
    const gone = await get(`/events?after=${first.next}`);
    expect(gone.status).toBe(410);
    const body = (await gone.json()) as { code: string; oldestCursor: string };
    expect(body).toMatchObject({ code: 'gone', oldestCursor: expect.any(String) });
    expect(await page(`/events?after=${body.oldestCursor}`)).toEqual({ items: [], next: body.oldestCursor });
  });

  it('streams the events after the cursor, then new ones live, and resumes exactly after Last-Event-ID', async () => {
    await start();
    const ids = [(await client('Ada')).id];
    const sse = { accept: 'text/event-stream' };
    const stream = await get('/events?types=client.*', { headers: sse });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = sseFrames(stream);
    const received: SseFrame[] = [];
    const take = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) received.push((await frames.next()).value as SseFrame);
    };
    await take(1);
    ids.push((await client('Grace')).id);
    await take(1);
    // Disconnect mid-stream; meanwhile more commit.
    await frames.return(undefined);
    ids.push((await client('Joan')).id, (await client('Mary')).id);
    const resumed = await get('/events?types=client.*&after=ignored-when-last-event-id-is-sent', {
      headers: { ...sse, 'last-event-id': received.at(-1)!.id! },
    });
    expect(resumed.status).toBe(200);
    const more = sseFrames(resumed);
    for (let i = 0; i < 2; i++) received.push((await more.next()).value as SseFrame);
    await more.return(undefined);
    const items = received.map((frame) => JSON.parse(frame.data) as Item);
    expect(items.map((item) => item.data.id)).toEqual(ids);
    expect(received.map((frame) => frame.id)).toEqual(items.map((item) => item.cursor));
  });

  it('refuses a stream as it refuses a page, before it starts', async () => {
    await start();
    const sse = { accept: 'text/event-stream' };
    expect((await get('/events', { token: null, headers: sse })).status).toBe(401);
    const bad = await get('/events', { headers: { ...sse, 'last-event-id': 'nope' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ errors: [{ field: 'Last-Event-ID', code: 'invalid_cursor' }] });
  });
});

describe('the event feed’s settings', () => {
  it('ends a stream once its credentials are no longer accepted', async () => {
    const revoked = new Set<string>();
    const switchboard = createSwitchboard({
      authenticate: async (request) => {
        if (revoked.has(request.headers.get('authorization') ?? '')) {
          throw new SwitchboardError('unauthorized', 'The API key was revoked.');
        }
        return testAuthenticate(request);
      },
      rateLimits: false,
      console: false,
      events: { credentialCheckMs: 50 },
    });
    const server = await serve({ fetch: switchboard.fetch, port: 0 });
    try {
      const token = 'Bearer scopes:crm.clients.read';
      const stream = await fetch(`${server.url}/api/v1/events`, {
        headers: { authorization: token, accept: 'text/event-stream' },
      });
      expect(stream.status).toBe(200);
      const frames = sseFrames(stream);
      await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
      expect((await frames.next()).done).toBe(false);
      revoked.add(token);
      expect((await frames.next()).done).toBe(true);
    } finally {
      await server.close();
      await switchboard.close();
    }
  });

  it('is left out with events: false', async () => {
    const switchboard = createSwitchboard({ authenticate: testAuthenticate, console: false, events: false });
    const page = await switchboard.fetch(
      new Request('http://localhost/api/v1/events', { headers: { authorization: 'Bearer admin' } }),
    );
    expect(page.status).toBe(404);
    const graphql = await switchboard.fetch(
      new Request('http://localhost/graphql', {
        method: 'POST',
        headers: { authorization: 'Bearer admin', 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ events { pageInfo { endCursor } } }' }),
      }),
    );
    expect(JSON.stringify(await graphql.json())).toContain('Cannot query field \\"events\\"');
  });
});

describe('a quiet event stream', () => {
  it('sends keep-alive comments at the interval asked for', async () => {
    const switchboard = createSwitchboard({
      authenticate: testAuthenticate,
      rateLimits: false,
      console: false,
      events: { keepAliveMs: 50 },
    });
    const server = await serve({ fetch: switchboard.fetch, port: 0 });
    try {
      const stream = await fetch(`${server.url}/api/v1/events`, {
        headers: { authorization: 'Bearer admin', accept: 'text/event-stream' },
      });
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      while (!text.includes(': keep-alive\n\n')) text += (await reader.read()).value ?? '';
      expect(text.startsWith(': connected\n\n')).toBe(true);
      await reader.cancel();
    } finally {
      await server.close();
      await switchboard.close();
    }
  });
});

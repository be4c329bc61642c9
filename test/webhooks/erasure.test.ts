/**
 * Erasure (issue 33, item 6): deleting a client leaves its e-mail nowhere in the event log — not in a
 * delivery's body, an attempt's response excerpt or headers, nor an event waiting in the outbox — from
 * the moment the deletion commits. Receivers that echo what they get, one answering 200 and one 500 (so
 * some deliveries are still pending), over loopback HTTP, on memory and on PostgreSQL, whose raw tables
 * are searched whole row by row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { until } from '../support/until.js';

const ADMIN = 'sbk_erasure_admin_key_0123456789abcdef0123';
type Json = Record<string, unknown>;

interface Echo {
  readonly server: NodeServer;
  readonly url: string;
  readonly bodies: Json[];
}

/** A receiver that answers `status` and echoes every body back, in its answer and in a header. */
async function echoing(status: number): Promise<Echo> {
  const bodies: Json[] = [];
  const server = await serve({
    port: 0,
    shutdownSignals: [],
    fetch: async (request) => {
      const text = await request.text();
      bodies.push(JSON.parse(text) as Json);
      const email = /"(?:email|customerEmail)":"([^"]+)"/.exec(text)?.[1] ?? 'none';
      return new Response(`Got ${text}`, { status, headers: { 'x-echo': email } });
    },
  });
  return { server, url: `${server.url}/hooks`, bodies };
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

/** Every place a storage keeps a copy of the event log, searched for `text`: how many hits. */
type Search = (storage: Storage, text: string) => Promise<number>;

/** PostgreSQL: every row of the webhook tables, the outbox and the bus's events, as text. */
const inTables: Search = async (_, text) => {
  const { rows: tables } = await db.pool.query<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()
       AND (tablename LIKE 'switchboard_webhook%' OR tablename IN ('switchboard_outbox', 'switchboard_bus_events'))`,
  );
  expect(tables.map((t) => t.tablename)).toEqual(
    expect.arrayContaining([
      'switchboard_webhook_deliveries',
      'switchboard_webhook_attempts',
      'switchboard_outbox',
    ]),
  );
  let hits = 0;
  for (const { tablename } of tables) {
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${tablename} t WHERE t::text LIKE '%' || $1 || '%'`,
      [text],
    );
    hits += rows[0]!.n;
  }
  return hits;
};

/** Memory: every delivery and each one's attempts, and every event the outbox keeps, relayed or not. */
const inMemory: Search = async (storage, text) => {
  const { items } = await storage.webhooks.deliveries.list({}, { offset: 0, limit: 10_000 });
  const attempts = await Promise.all(items.map((d) => storage.webhooks.attempts.listByDelivery(d.id)));
  // The feed reads every committed event, waiting for the relay or not (a claim would lease them).
  const { events } = await storage.outbox.read({ limit: 10_000 });
  expect(events.length).toBeGreaterThan(0);
  return [...items, ...attempts.flat(), ...events].filter((copy) => JSON.stringify(copy).includes(text))
    .length;
};

describe.each([
  ['memory', async () => createMemoryStorage(), inMemory] as const,
  ['PostgreSQL', async () => db.storage(), inTables] as const,
])('erasure of a deleted client on %s', (_, makeStorage, search) => {
  let switchboard: Switchboard;
  let server: NodeServer;
  let storage: Storage;
  let ok: Echo;
  let failing: Echo;
  const run = Date.now();
  const ada = `ada.${run}@example.com`;
  const grace = `grace.${run}@example.com`;
  let adaId = '';

  const call = async (
    path: string,
    method = 'GET',
    json?: unknown,
  ): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as Json };
  };
  const attemptsOf = async (url: string): Promise<number> => {
    const { items } = await storage.webhooks.deliveries.list({}, { offset: 0, limit: 10_000 });
    const endpoints = (await storage.webhooks.endpoints.list({ offset: 0, limit: 10 })).items;
    const endpointId = endpoints.find((e) => e.url === url)!.id;
    return items.filter((d) => d.endpointId === endpointId && d.attempts > 0).length;
  };

  beforeAll(async () => {
    storage = await makeStorage();
    switchboard = createSwitchboard({
      storage,
      oauth: { adminApiKey: ADMIN },
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
      relayIntervalMs: 50,
      rest: {
        versions: [
          { basePath: '/api/v1', apiVersion: 1 },
          { basePath: '/api/v2', apiVersion: 2 },
        ],
      },
    });
    switchboard.start();
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    await switchboard.oauth!.ready;
    ok = await echoing(200);
    failing = await echoing(500);
    for (const receiver of [ok, failing])
      expect(
        (await call('/webhook-endpoints', 'POST', { url: receiver.url, eventTypes: ['*'] })).status,
      ).toBe(201);

    adaId = String((await call('/clients', 'POST', { name: 'Ada Lovelace', email: ada })).body.id);
    const graceId = String((await call('/clients', 'POST', { name: 'Grace Hopper', email: grace })).body.id);
    for (const clientId of [adaId, graceId])
      expect((await call('/orders', 'POST', { clientId, total: '12.50', currency: 'EUR' })).status).toBe(201);
    expect((await call(`/clients/${adaId}`, 'PATCH', { city: 'London' })).status).toBe(200);
    // Every event sent once to both: 200s echoed into excerpts, 500s leave deliveries pending.
    await until(
      async () => (await attemptsOf(ok.url)) >= 5 && (await attemptsOf(failing.url)) >= 5,
      'attempts',
    );
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([ok?.server.close(), failing?.server.close()]);
    await switchboard?.close();
  });

  it('finds the e-mails in the event log before (the search sees what it looks for)', async () => {
    expect(await search(storage, ada)).toBeGreaterThan(0);
    expect(ok.bodies.some((b) => JSON.stringify(b).includes(ada))).toBe(true);
  });

  it('after deleting a client, no stored delivery, attempt or event contains its e-mail', async () => {
    expect((await call(`/clients/${adaId}`, 'DELETE')).status).toBe(204);
    expect(await search(storage, ada)).toBe(0);
    // Another client's data stays.
    expect(await search(storage, grace)).toBeGreaterThan(0);
  });

  it('shows the erased deliveries in the admin log with their owner and when they were erased', async () => {
    const endpoints = (await call('/webhook-endpoints')).body.items as Json[];
    const deliveries = (await call(`/webhook-endpoints/${endpoints[0]!.id}/deliveries?limit=100`)).body
      .items as Json[];
    const adas = deliveries.filter((d) => d.owner === adaId);
    expect(adas.length).toBeGreaterThanOrEqual(3);
    for (const d of adas) expect(d.erasedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(deliveries.filter((d) => d.owner !== adaId).every((d) => d.erasedAt === null)).toBe(true);
    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ webhookDeliveries(limit: 100) { owner erasedAt } }' }),
    });
    const listed = ((await graphql.json()) as { data: { webhookDeliveries: Json[] } }).data.webhookDeliveries;
    expect(listed.filter((d) => d.owner === adaId).every((d) => typeof d.erasedAt === 'string')).toBe(true);
  });

  it('shows the client’s events in the feed as tombstones, over REST and GraphQL', async () => {
    const response = await fetch(`${server.url}/api/v2/events?limit=100`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const { items } = (await response.json()) as { items: Json[] };
    const adas = items.filter((i) => (i.data as Json).id === adaId || (i.data as Json).clientId === adaId);
    expect(adas.map((i) => i.event)).toEqual([
      'client.created',
      'order.created',
      'client.updated',
      'client.deleted',
    ]);
    for (const item of adas) expect(item.redacted).toBe(true);
    expect(adas[1]!.data).toEqual({ id: expect.any(String), clientId: adaId });
    expect(JSON.stringify(items)).not.toContain(ada);
    expect(JSON.stringify(items)).toContain(grace);

    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ events(first: 100) { edges { node { type redacted data } } } }' }),
    });
    const nodes = (
      (await graphql.json()) as { data: { events: { edges: { node: Json }[] } } }
    ).data.events.edges.map((e) => e.node);
    expect(nodes.filter((n) => n.redacted).map((n) => n.type)).toEqual(adas.map((i) => i.event));
    expect(JSON.stringify(nodes)).not.toContain(ada);
  });

  it('sends client.deleted as a tombstone, and what was pending without the e-mail, and stores none of it', async () => {
    const deleted = () => ok.bodies.find((b) => b.event === 'client.deleted');
    await until(() => deleted() !== undefined, 'client.deleted');
    expect(deleted()).toMatchObject({ data: { id: adaId }, redacted: true });
    expect(Object.keys(deleted()!.data as Json)).toEqual(['id']);
    expect(JSON.stringify(deleted())).not.toContain(ada);
    await until(async () => (await attemptsOf(ok.url)) >= 6, 'the tombstone’s attempt recorded');
    expect(await search(storage, ada)).toBe(0);

    // The deliveries still pending at the failing receiver are retried as tombstones.
    const before = failing.bodies.length;
    const { items } = await storage.webhooks.deliveries.list(
      { status: 'pending' },
      { offset: 0, limit: 100 },
    );
    const ids = items.filter((d) => d.erasedAt != null).map((d) => d.id);
    expect(ids.length).toBeGreaterThan(0);
    await storage.webhooks.deliveries.expedite({ ids }, Date.now());
    await until(() => failing.bodies.length >= before + ids.length, 'retries');
    const retried = failing.bodies.slice(before).filter((b) => b.redacted === true);
    expect(retried.length).toBeGreaterThan(0);
    for (const body of failing.bodies.slice(before)) expect(JSON.stringify(body)).not.toContain(ada);
    await until(async () => {
      const attempts = await Promise.all(ids.map((id) => storage.webhooks.attempts.listByDelivery(id)));
      return attempts.every((a) => a.length >= 2);
    }, 'the retries recorded');
    expect(await search(storage, ada)).toBe(0);
  });
});

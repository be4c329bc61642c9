/**
 * A host declares a record of its own — a shop's returns — and gets it on REST with every convention,
 * in the OpenAPI document, as signed webhook events, with scope checks and users limited to their own;
 * on memory and on PostgreSQL.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type Storage, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { createApiKey } from '../../src/oauth/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createPostgresStorage } from '../../src/storage/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { until } from '../support/until.js';
import { type ReceivedWebhook, startReceiver } from './receiver.js';

import { returns } from './returns.js';

const ADMIN = 'sbk_host_resource_admin_key_0123456789abcdef';

describe.each([
  ['memory', async () => ({ storage: createMemoryStorage() as Storage, done: async () => {} })],
  [
    'PostgreSQL',
    async () => {
      const db: TestDatabase = await createTestDatabase();
      const storage = createPostgresStorage({ pool: db.pool });
      await storage.migrate();
      return { storage: storage as Storage, done: () => db.drop() };
    },
  ],
])('a host-declared resource on %s', (_, makeStorage) => {
  let switchboard: Switchboard;
  let server: NodeServer;
  let receiver: NodeServer;
  let done: () => Promise<void>;
  let received: ReceivedWebhook[] = [];
  let clientId = '';
  let orderId = '';

  const call = async (
    path: string,
    init: { method?: string; json?: unknown; token?: string; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${init.token ?? ADMIN}`,
      ...init.headers,
    };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${server.url}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    });
    const text = await response.text();
    return { response, body: text ? JSON.parse(text) : null };
  };

  beforeAll(async () => {
    const made = await makeStorage();
    done = made.done;
    switchboard = createSwitchboard({
      storage: made.storage,
      resources: [returns],
      oauth: { adminApiKey: ADMIN },
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
      relayIntervalMs: 50,
    });
    switchboard.start();
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    ({ server: receiver, received } = await startReceiver());
    const client = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    clientId = client.id;
    orderId = (
      await switchboard.domain.orders.create({ clientId: client.id, total: '20.00', currency: 'EUR' })
    ).id;
    const endpoint = await call('/api/v1/webhook-endpoints', {
      method: 'POST',
      json: { url: `${receiver.url}/hooks`, eventTypes: ['return.*'] },
    });
    expect(endpoint.response.status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await switchboard?.close();
    await done?.();
  });

  it('creates with 201 + Location + ETag, reads, lists with filters, sort and Link, and refuses bad input', async () => {
    const created = await call('/api/v1/returns', {
      method: 'POST',
      json: { clientId, orderId, reason: 'Too small', quantity: 2 },
      headers: { 'idempotency-key': 'return-1' },
    });
    expect(created.response.status).toBe(201);
    expect(created.body).toMatchObject({
      clientId,
      orderId,
      reason: 'Too small',
      quantity: 2,
      note: null,
      status: 'requested',
      version: 1,
    });
    expect(created.body.id).toMatch(/^ret_/);
    expect(created.response.headers.get('location')).toBe(`/api/v1/returns/${created.body.id}`);
    expect(created.response.headers.get('etag')).toBeTruthy();
    // The same Idempotency-Key replays the first answer instead of creating a second return.
    const again = await call('/api/v1/returns', {
      method: 'POST',
      json: { clientId, orderId, reason: 'Too small', quantity: 2 },
      headers: { 'idempotency-key': 'return-1' },
    });
    expect(again.body.id).toBe(created.body.id);

    const read = await call(`/api/v1/returns/${created.body.id}`);
    expect(read.body).toEqual(created.body);
    await call('/api/v1/returns', {
      method: 'POST',
      json: { clientId, orderId, reason: 'Wrong colour', quantity: 5 },
    });

    const byQuantity = await call(`/api/v1/returns?orderId=${orderId}&sort=-quantity&limit=1`);
    expect(byQuantity.body).toMatchObject({ total: 2, page: 1, limit: 1 });
    expect(byQuantity.body.items[0].quantity).toBe(5);
    expect(byQuantity.response.headers.get('link')).toContain('rel="next"');
    const nested = await call(`/api/v1/clients/${clientId}/returns`);
    expect(nested.body.total).toBe(2);

    const bad = await call('/api/v1/returns', {
      method: 'POST',
      json: { clientId, orderId, reason: '', quantity: 1000 },
    });
    expect(bad.response.status).toBe(422);
    expect(bad.response.headers.get('content-type')).toBe('application/problem+json');
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'reason', code: 'required', message: 'reason must not be empty.' },
        { field: 'quantity', code: 'out_of_range', message: 'quantity must be between 1 and 100.' },
      ]),
    );
    const dangling = await call('/api/v1/returns', {
      method: 'POST',
      json: { clientId, orderId: 'ord_nope', reason: 'x', quantity: 1 },
    });
    expect(dangling.response.status).toBe(422);
    expect(dangling.body.errors[0]).toMatchObject({ field: 'orderId', code: 'unknown_reference' });
    expect((await call('/api/v1/returns/ret_nope')).response.status).toBe(404);
  });

  it('moves along its life cycle, refusing moves it does not allow; If-Match guards writes; delete is 204', async () => {
    const { body: made } = await call('/api/v1/returns', {
      method: 'POST',
      json: { clientId, orderId, reason: 'Broken', quantity: 1 },
    });
    const approved = await call(`/api/v1/returns/${made.id}`, {
      method: 'PATCH',
      json: { status: 'approved' },
    });
    expect(approved.body).toMatchObject({ status: 'approved', version: 2 });
    const back = await call(`/api/v1/returns/${made.id}`, { method: 'PATCH', json: { status: 'requested' } });
    expect(back.response.status).toBe(409);
    expect(back.body.errors[0]).toMatchObject({ field: 'status', code: 'invalid_transition' });
    const immutable = await call(`/api/v1/returns/${made.id}`, { method: 'PATCH', json: { orderId } });
    expect(immutable.response.status).toBe(422);
    const stale = await call(`/api/v1/returns/${made.id}`, {
      method: 'PUT',
      json: { reason: 'Broken twice', quantity: 1 },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.response.status).toBe(412);
    const replaced = await call(`/api/v1/returns/${made.id}`, {
      method: 'PUT',
      json: { reason: 'Broken twice', quantity: 1 },
      headers: { 'if-match': approved.response.headers.get('etag')! },
    });
    expect(replaced.body).toMatchObject({ reason: 'Broken twice', status: 'approved', orderId, version: 3 });
    const deleted = await call(`/api/v1/returns/${made.id}`, { method: 'DELETE' });
    expect(deleted.response.status).toBe(204);
    expect((await call(`/api/v1/returns/${made.id}`)).response.status).toBe(404);
  });

  it('checks its scopes on every route', async () => {
    const { key: reader } = await createApiKey(
      switchboard.storage,
      { name: 'reader', scopes: ['shop.returns.read'] },
      { clock: { now: () => Date.now() }, ids: (prefix) => `${prefix}_reader` },
    );
    const refused = await call('/api/v1/returns', {
      method: 'POST',
      token: reader,
      json: { clientId, orderId, reason: 'x', quantity: 1 },
    });
    expect(refused.response.status).toBe(403);
    expect(refused.response.headers.get('www-authenticate')).toContain('scope="shop.returns.write"');
    expect((await call('/api/v1/returns', { token: reader })).response.status).toBe(200);
  });

  it('sends its events to webhooks, signed, and lists them in the event-type catalogue', async () => {
    const expected = ['return.created', 'return.approved', 'return.updated', 'return.deleted'];
    await until(() => expected.every((type) => received.some((r) => r.event === type)));
    const types = new Set(received.map((r) => r.event));
    expect(types).toEqual(new Set(expected));
    expect(received.every((r) => r.signature?.startsWith('sha256='))).toBe(true);
    const catalogue = await call('/api/v1/webhook-event-types');
    expect(JSON.stringify(catalogue.body)).toContain('return.refunded');
  });

  it('is in the OpenAPI document, which stays valid', async () => {
    const { body: document } = await call('/api/v1/openapi.json');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/returns', '/returns/{id}', '/clients/{id}/returns']),
    );
    expect(document.components.schemas.Return.properties.status.enum).toEqual([
      'requested',
      'approved',
      'refused',
      'refunded',
    ]);
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
  });
});

describe('a host-declared resource seen by a signed-in user', () => {
  it('lists, reads and creates only the returns of their own client; others are 404 or 403', async () => {
    // The host's own sign-in: `Bearer user:<client id>` acts for that client (a user principal).
    const switchboard = createSwitchboard({
      resources: [returns],
      authenticate: async (request) => {
        const id = (request.headers.get('authorization') ?? '').replace('Bearer user:', '');
        return {
          kind: 'user',
          subject: id,
          userId: id,
          scopes: new Set(['crm.clients.read', 'shop.returns.read', 'shop.returns.write']),
        };
      },
    });
    const ada = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const grace = await switchboard.domain.clients.create({ name: 'Grace', email: 'grace@example.com' });
    const adaOrder = await switchboard.domain.orders.create({
      clientId: ada.id,
      total: '1.00',
      currency: 'EUR',
    });
    const graceOrder = await switchboard.domain.orders.create({
      clientId: grace.id,
      total: '2.00',
      currency: 'EUR',
    });
    const service = switchboard.domain.resources.return!;
    const adas = await service.create({ clientId: ada.id, orderId: adaOrder.id, reason: 'a', quantity: 1 });
    const graces = await service.create({
      clientId: grace.id,
      orderId: graceOrder.id,
      reason: 'g',
      quantity: 1,
    });
    const as = (user: string, path: string, init: RequestInit = {}) =>
      switchboard.fetch(
        new Request(`http://localhost${path}`, {
          ...init,
          headers: { authorization: `Bearer user:${user}`, 'content-type': 'application/json' },
        }),
      );

    const listed = await (await as(ada.id, '/api/v1/returns')).json();
    expect(listed.items.map((r: { id: string }) => r.id)).toEqual([adas.id]);
    expect((await as(ada.id, `/api/v1/returns/${adas.id}`)).status).toBe(200);
    expect((await as(ada.id, `/api/v1/returns/${graces.id}`)).status).toBe(404);
    expect((await as(ada.id, `/api/v1/clients/${grace.id}/returns`)).status).toBe(404);
    const forOther = await as(ada.id, '/api/v1/returns', {
      method: 'POST',
      body: JSON.stringify({ clientId: grace.id, orderId: graceOrder.id, reason: 'x', quantity: 1 }),
    });
    expect(forOther.status).toBe(403);
    const own = await as(ada.id, '/api/v1/returns', {
      method: 'POST',
      body: JSON.stringify({ clientId: ada.id, orderId: adaOrder.id, reason: 'mine', quantity: 1 }),
    });
    expect(own.status).toBe(201);
    expect((await as(ada.id, `/api/v1/returns/${graces.id}`, { method: 'DELETE' })).status).toBe(404);
  });
});

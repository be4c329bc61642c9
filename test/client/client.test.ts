/**
 * `switchboard-kit/client` against the example server (its own process, real HTTP): typed calls on
 * both API versions, pagination, conditional changes, an Idempotency-Key that makes a create retried
 * after a lost answer count once, the problem of a refused call as an error, and a webhook the server
 * signs verified with the verifier the client exports. Retries on 429 and 503 run against a
 * switchboard whose write budget is two a second, and a server that is unavailable once.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createSwitchboardClient, SwitchboardApiError, verifyWebhook } from '../../src/client/index.js';
import { createSwitchboard, defineResource } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { type RunningExample, startExampleServer } from '../support/example-server.js';
import { until } from '../support/until.js';

let example: RunningExample;
let token: string;

beforeAll(async () => {
  example = await startExampleServer({ POLL_INTERVAL_MS: '50' });
  token = /Admin API key {4}(sbk_\w+)/.exec(example.output())![1]!;
});
afterAll(() => example?.stop());

const clientOf = <V extends number>(version: V, options: { fetch?: typeof fetch } = {}) =>
  createSwitchboardClient({ baseUrl: example.url, version, token, ...options });

describe('the typed client against the example server', () => {
  it('creates, reads, changes and deletes records, typed for the version it speaks', async () => {
    const api = clientOf(2);
    const ada = await api.clients.create({ name: 'Ada Client', email: 'ada.client@example.com' });
    expect(ada).toMatchObject({
      name: 'Ada Client',
      email: 'ada.client@example.com',
      phone: null,
      version: 1,
    });

    const order = await api.orders.create({ clientId: ada.id, total: { amount: '12.50', currency: 'EUR' } });
    expect(order.total).toEqual({ amount: '12.50', currency: 'EUR' });
    expect(order.status).toBe('pending');
    // Version 1 shows the same order with total and currency side by side.
    const v1 = await clientOf(1).orders.get(order.id);
    expect([v1.total, v1.currency]).toEqual(['12.50', 'EUR']);

    const paid = await api.orders.update(order.id, { status: 'paid' }, { ifVersion: order.version });
    expect(paid).toMatchObject({ status: 'paid', version: 2 });
    const stale = await api.orders.update(order.id, { status: 'shipped' }, { ifVersion: 1 }).catch((e) => e);
    expect(stale).toBeInstanceOf(SwitchboardApiError);
    expect(stale).toMatchObject({ status: 412, code: 'precondition_failed' });

    const moved = await api.clients.replace(ada.id, {
      name: 'Ada L.',
      email: 'ada.l@example.com',
      phone: null,
      city: 'Lyon',
    });
    expect(moved).toMatchObject({ name: 'Ada L.', city: 'Lyon', version: 2 });

    await api.clients.delete(ada.id, { ifVersion: 2 });
    const gone = await api.clients.get(ada.id).catch((e) => e);
    expect(gone).toMatchObject({ status: 404, code: 'not_found' });
    expect(gone.detail).toContain(ada.id);
  });

  it('turns a refused write into an error with the fields and codes the server gave', async () => {
    const error = await clientOf(2)
      .clients.create({ name: 'No mail', email: 'not an e-mail' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(SwitchboardApiError);
    expect(error.status).toBe(422);
    expect(error.code).toBe('validation_failed');
    expect(error.errors).toContainEqual(expect.objectContaining({ field: 'email' }));
  });

  it('pages through a list by the links the server sends', async () => {
    const api = clientOf(2);
    for (let i = 0; i < 23; i++)
      await api.clients.create({ name: `Paged ${i}`, email: `paged${i}@example.com`, city: 'Pagetown' });

    const first = await api.clients.list({ city: 'Pagetown', limit: 10 });
    expect(first).toMatchObject({ page: 1, limit: 10, total: 23 });
    expect(first.items).toHaveLength(10);
    expect(first.next).toContain('page=2');

    const sizes: number[] = [];
    for await (const page of api.clients.pages({ city: 'Pagetown', limit: 10 }))
      sizes.push(page.items.length);
    expect(sizes).toEqual([10, 10, 3]);

    const names: string[] = [];
    for await (const client of api.clients.all({ city: 'Pagetown', limit: 10, sort: '-createdAt' }))
      names.push(client.name);
    expect(names).toHaveLength(23);
    expect(new Set(names).size).toBe(23);
    expect(names[0]).toBe('Paged 22');
  });

  it('sends an Idempotency-Key with a create, so a retry after a lost answer creates one record', async () => {
    const sent: (string | null)[] = [];
    let dropped = false;
    // The first answer is lost on the way back: the server did the work, the caller saw a failure.
    const lossy: typeof fetch = async (input, init) => {
      sent.push(new Headers(init?.headers).get('idempotency-key'));
      const response = await fetch(input, init);
      if (init?.method === 'POST' && !dropped) {
        dropped = true;
        await response.body?.cancel();
        throw new TypeError('fetch failed');
      }
      return response;
    };
    const api = clientOf(2, { fetch: lossy });
    const created = await api.clients.create({ name: 'Once', email: 'once@example.com' });
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).toBe(sent[0]);

    const found = await clientOf(2).clients.list({ email: 'once@example.com' });
    expect(found.total).toBe(1);
    expect(found.items[0]!.id).toBe(created.id);

    // A key the caller chose: the same key again answers the first result, without a second record.
    const input = { name: 'Chosen', email: 'chosen@example.com' };
    const first = await api.clients.create(input, { idempotencyKey: 'signup-42' });
    const second = await api.clients.create(input, { idempotencyKey: 'signup-42' });
    expect(second.id).toBe(first.id);
    expect((await api.clients.list({ email: 'chosen@example.com' })).total).toBe(1);
  });
});

describe('the event feed', () => {
  it('reads every event after a cursor page by page up to the newest, then reads on from the last one', async () => {
    const api = clientOf(2);
    // Where the feed of client events stands now.
    let after: string | undefined;
    for await (const item of api.events.all({ types: ['client.*'], limit: 50 })) after = item.cursor;

    const ada = await api.clients.create({ name: 'Feed Ada', email: 'feed.ada@example.com' });
    const grace = await api.clients.create({ name: 'Feed Grace', email: 'feed.grace@example.com' });
    await api.clients.update(ada.id, { city: 'Lyon' });
    const read = [];
    for await (const item of api.events.all({ after, types: ['client.*'], limit: 1 })) read.push(item);
    expect(read.map((item) => [item.event, item.data.id, item.subject, item.sequence])).toEqual([
      ['client.created', ada.id, ada.id, 1],
      ['client.created', grace.id, grace.id, 1],
      ['client.updated', ada.id, ada.id, 2],
    ]);
    expectTypeOf(read[0]!.cursor).toEqualTypeOf<string>();

    // From the last cursor, nothing yet; then the next change, and only it.
    expect((await api.events.page({ after: read.at(-1)!.cursor, types: ['client.*'] })).items).toEqual([]);
    await api.clients.delete(grace.id);
    const { items } = await api.events.page({ after: read.at(-1)!.cursor, types: ['client.*'] });
    expect(items.map((item) => [item.event, item.data.id])).toEqual([['client.deleted', grace.id]]);

    const refused = await api.events.page({ after: 'not-a-cursor' }).catch((error) => error);
    expect(refused).toBeInstanceOf(SwitchboardApiError);
    expect(refused).toMatchObject({ status: 400 });
  });
});

describe('webhooks a chatbot receives', () => {
  let receiver: NodeServer;
  const verified: {
    ok: boolean;
    eventId: string | null;
    payload: { event: string; event_id: string; data: { id: string } };
  }[] = [];
  afterAll(() => receiver?.close());

  it('verifies a delivery the server signed with the verifier the client exports', async () => {
    let secret = '';
    receiver = await serve({
      port: 0,
      shutdownSignals: [],
      fetch: async (request) => {
        const body = new Uint8Array(await request.arrayBuffer());
        const result = await verifyWebhook({ body, headers: request.headers, secrets: [secret] });
        verified.push({
          ok: result.ok,
          eventId: result.ok ? result.eventId : null,
          payload: JSON.parse(new TextDecoder().decode(body)),
        });
        return new Response(null, { status: result.ok ? 204 : 401 });
      },
    });
    const endpoint = await fetch(`${example.url}/api/v2/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['client.created'] }),
    });
    expect(endpoint.status).toBe(201);
    secret = (await endpoint.json()).secret;

    const hooked = await clientOf(2).clients.create({ name: 'Hooked', email: 'hooked@example.com' });
    await until(() => verified.length > 0, 'the client.created delivery');
    const [delivery] = verified;
    expect(delivery).toMatchObject({
      ok: true,
      payload: { event: 'client.created', data: { id: hooked.id } },
    });
    expect(delivery!.eventId).toBe(delivery!.payload.event_id);
  });
});

describe('retries', () => {
  const KEY = 'sbk_client_test_admin_key_0123456789';
  let server: NodeServer;
  afterAll(() => server?.close());

  it('waits out a 429 for the Retry-After the server sends, and gives up on one longer than it will wait', async () => {
    const switchboard = createSwitchboard({
      oauth: { adminApiKey: KEY },
      rateLimits: { rules: { write: { limit: 2, windowMs: 1_000 } } },
      rest: { versions: [{ basePath: '/api/v2', apiVersion: 2 }] },
    });
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    const seen: number[] = [];
    const watching: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      seen.push(response.status);
      return response;
    };
    const api = createSwitchboardClient({ baseUrl: server.url, version: 2, token: KEY, fetch: watching });
    const started = performance.now();
    for (let i = 0; i < 3; i++)
      await api.clients.create({ name: `Budget ${i}`, email: `budget${i}@example.com` });
    expect(seen).toContain(429);
    expect(seen.filter((status) => status === 201)).toHaveLength(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);

    const impatient = createSwitchboardClient({
      baseUrl: server.url,
      version: 2,
      token: KEY,
      retry: { maxDelayMs: 10 },
    });
    await impatient.clients.create({ name: 'Fills', email: 'fills@example.com' }).catch(() => undefined);
    await impatient.clients.create({ name: 'Fills 2', email: 'fills2@example.com' }).catch(() => undefined);
    const refused = await impatient.clients
      .create({ name: 'Refused', email: 'refused@example.com' })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(SwitchboardApiError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.retryAfterMs).toBeGreaterThan(0);
  });

  it('tries a 503 again after its Retry-After, and stops after the attempts it was given', async () => {
    let answers = 0;
    const unavailable = await serve({
      port: 0,
      shutdownSignals: [],
      fetch: async () => {
        answers++;
        return answers === 1
          ? Response.json(
              { code: 'unavailable', detail: 'Starting up.' },
              { status: 503, headers: { 'retry-after': '1' } },
            )
          : Response.json({ id: 'cli_1', name: 'Up' });
      },
    });
    try {
      const api = createSwitchboardClient({ baseUrl: unavailable.url, version: 2 });
      const started = performance.now();
      expect(await api.clients.get('cli_1')).toMatchObject({ name: 'Up' });
      expect(answers).toBe(2);
      expect(performance.now() - started).toBeGreaterThanOrEqual(900);

      const once = createSwitchboardClient({ baseUrl: unavailable.url, version: 2, retry: { attempts: 1 } });
      answers = 0;
      const error = await once.clients.get('cli_1').catch((e) => e);
      expect(error).toMatchObject({
        status: 503,
        code: 'unavailable',
        detail: 'Starting up.',
        retryAfterMs: 1000,
      });
    } finally {
      await unavailable.close();
    }
  });
});

describe('custom resources', () => {
  it('calls a resource the host declared by its plural, typed from its declaration', async () => {
    const KEY = 'sbk_client_test_admin_key_abcdefghij';
    const returns = defineResource({
      name: 'return',
      idPrefix: 'ret',
      owner: 'clientId',
      relations: { clientId: 'client' },
      fields: { clientId: z.string(), reason: z.string().max(500) },
      immutable: ['clientId'],
      lifecycle: {
        field: 'status',
        initial: 'requested',
        states: { requested: { to: ['approved', 'refused'] }, approved: { to: [] }, refused: { to: [] } },
      },
      scopes: { read: 'shop.returns.read', write: 'shop.returns.write' },
    });
    const switchboard = createSwitchboard({ oauth: { adminApiKey: KEY }, resources: [returns] });
    const server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    try {
      const api = createSwitchboardClient({
        baseUrl: server.url,
        version: 1,
        token: KEY,
        resources: [returns],
      });
      const client = await api.clients.create({ name: 'Returner', email: 'returner@example.com' });
      const made = await api.returns.create({ clientId: client.id, reason: 'Too small' });
      expect(made).toMatchObject({ status: 'requested', reason: 'Too small' });
      const approved = await api.returns.update(made.id, { status: 'approved' });
      expect(approved.status).toBe('approved');
      const listed = await api.returns.list({ status: 'approved' });
      expect(listed.items.map((r) => r.id)).toEqual([made.id]);
    } finally {
      await server.close();
    }
  });
});

describe('types', () => {
  it('follow the declarations and the version, so a wrong call does not compile', () => {
    const v2 = createSwitchboardClient({ baseUrl: 'http://127.0.0.1:9', version: 2 });
    const v1 = createSwitchboardClient({ baseUrl: 'http://127.0.0.1:9', version: 1 });
    type OrderV2 = Awaited<ReturnType<typeof v2.orders.get>>;
    type OrderV1 = Awaited<ReturnType<typeof v1.orders.get>>;
    expectTypeOf<OrderV2['total']>().toEqualTypeOf<{ amount: string; currency: string }>();
    expectTypeOf<OrderV1['total']>().toEqualTypeOf<string>();
    expectTypeOf<OrderV1['status']>().toEqualTypeOf<
      'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled' | 'refunded'
    >();
    type Client = Awaited<ReturnType<typeof v2.clients.get>>;
    expectTypeOf<Client['phone']>().toEqualTypeOf<string | null>();
    expectTypeOf<Parameters<typeof v2.messages.create>[0]>().toEqualTypeOf<{
      chatbotId: string;
      visitorId: string;
      content: string;
      conversationId?: string | undefined;
    }>();
    // Calls that the server would refuse do not compile. Never sent: the functions are not called.
    const wrong = [
      // @ts-expect-error v2 takes the total as money
      () => v2.orders.create({ clientId: 'cli_1', total: '12.50', currency: 'EUR' }),
      // @ts-expect-error not a status an order has
      () => v2.orders.update('ord_1', { status: 'lost' }),
      // @ts-expect-error an order's total cannot change
      () => v2.orders.update('ord_1', { total: '1.00' }),
      // @ts-expect-error name is required
      () => v2.clients.create({ email: 'x@example.com' }),
      // @ts-expect-error no such resource
      () => v2.invoices,
    ];
    expect(wrong).toHaveLength(5);
  });
});

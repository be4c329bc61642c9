import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, type Switchboard, trustEveryone } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  createWebhookAdmin,
  createWebhookAdminHandler,
  createWebhookReceiver,
  type ReceivedWebhook,
  WebhookAttemptSchema,
  WebhookEndpointHealthSchema,
  WebhookEventTypesSchema,
} from '../../src/webhooks/index.js';
import { harness, listen, orderEvent, scriptedReceiver, webhookApi } from './support.js';

const HOUR = 3_600_000;
const started: Switchboard[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

const start = () => webhookApi(started);

/** A verifying receiver on loopback that also keeps each request's headers and raw body. */
async function verifyingReceiver(answer?: (type: string) => Response | undefined) {
  const secrets: string[] = [];
  const events: ReceivedWebhook[] = [];
  const requests: { headers: Headers; body: string }[] = [];
  const receive = createWebhookReceiver({
    secrets,
    idempotency: createMemoryStorage().idempotency,
    onEvent: (event) => void events.push(event),
  });
  const server = await listen(async (request) => {
    const body = await request.clone().text();
    requests.push({ headers: request.headers, body });
    return answer?.(JSON.parse(body).event) ?? receive(request);
  });
  return { url: `${server.url}/hooks`, secrets, events, requests };
}

describe('webhook test events', () => {
  it('sends a signed webhook.test event to that endpoint alone, logged like every delivery', async () => {
    const { switchboard, api, register } = await start();
    const receiver = await verifyingReceiver();
    const bystander = await verifyingReceiver();
    const endpoint = await register(receiver.url, ['order.*']);
    receiver.secrets.push(endpoint.secret);
    const other = await register(bystander.url, ['*']);

    const queued = await api(`/webhook-endpoints/${endpoint.id}/test-events`, { method: 'POST' });
    expect(queued.status).toBe(202);
    const delivery = await queued.json();
    expect(delivery).toMatchObject({ endpointId: endpoint.id, eventType: 'webhook.test', status: 'pending' });
    expect(queued.headers.get('location')).toBe(
      `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}`,
    );

    switchboard.start();
    await expect.poll(() => receiver.events.length, { timeout: 5000 }).toBe(1);
    expect(receiver.events[0]).toMatchObject({
      id: delivery.eventId,
      type: 'webhook.test',
      payload: { event: 'webhook.test', data: { test: true, endpointId: endpoint.id } },
    });
    await expect
      .poll(async () => (await (await api(`/webhook-endpoints/${endpoint.id}/deliveries`)).json()).items)
      .toMatchObject([{ id: delivery.id, eventType: 'webhook.test', status: 'succeeded', attempts: 1 }]);
    expect(bystander.requests).toEqual([]);
    expect((await (await api(`/webhook-endpoints/${other.id}/deliveries`)).json()).total).toBe(0);
  });

  it('records on each attempt the headers it sent: the signature is the one the receiver got', async () => {
    const { switchboard, api, register } = await start();
    const receiver = await verifyingReceiver();
    const endpoint = await register(receiver.url, ['*']);
    receiver.secrets.push(endpoint.secret);
    const delivery = await (
      await api(`/webhook-endpoints/${endpoint.id}/test-events`, { method: 'POST' })
    ).json();
    switchboard.start();
    await expect.poll(() => receiver.events.length, { timeout: 5000 }).toBe(1);

    const path = `/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/attempts`;
    await expect.poll(async () => (await (await api(path)).json()).items.length).toBe(1);
    const [attempt] = (await (await api(path)).json()).items;
    expect(WebhookAttemptSchema.parse(attempt)).toEqual(attempt);
    const got = receiver.requests[0]!.headers;
    expect(attempt.requestHeaders['x-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    for (const name of ['x-signature', 'x-timestamp', 'x-event-id', 'content-type', 'user-agent'])
      expect(attempt.requestHeaders[name], name).toBe(got.get(name));
    for (const [name, value] of Object.entries(attempt.requestHeaders)) expect(got.get(name)).toBe(value);
    // The body sent is the delivery's payload, byte for byte.
    expect(receiver.requests[0]!.body).toBe(delivery.payload);
  });

  it('refuses a test event for a disabled endpoint (409) or one that does not exist (404)', async () => {
    const { api, register } = await start();
    const endpoint = await register('https://bot.example.com/hooks', ['*']);
    await api(`/webhook-endpoints/${endpoint.id}`, { method: 'PATCH', body: '{"enabled":false}' });
    const disabled = await api(`/webhook-endpoints/${endpoint.id}/test-events`, { method: 'POST' });
    expect(disabled.status).toBe(409);
    expect(disabled.headers.get('content-type')).toBe('application/problem+json');
    expect(await disabled.json()).toMatchObject({
      code: 'conflict',
      errors: [{ field: 'enabled', code: 'disabled' }],
    });
    const absent = await api('/webhook-endpoints/whe_nobody/test-events', { method: 'POST' });
    expect(absent.status).toBe(404);
    expect((await (await api(`/webhook-endpoints/${endpoint.id}/deliveries`)).json()).total).toBe(0);
  });
});

describe('webhook endpoint health and the delivery log', () => {
  it('counts one delivered and one dead delivery of the last 24 hours, with the failed attempt', async () => {
    const { switchboard, api, register } = await start();
    const receiver = await verifyingReceiver((type) =>
      type === 'order.paid' ? new Response('no thanks', { status: 400 }) : undefined,
    );
    const endpoint = await register(receiver.url, ['order.*']);
    receiver.secrets.push(endpoint.secret);
    const health = async () => (await api(`/webhook-endpoints/${endpoint.id}/health`)).json();
    expect(await health()).toMatchObject({ delivered: 0, failed: 0, pending: 0, successRate: null });

    switchboard.start();
    const client = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const order = await switchboard.domain.orders.create({
      clientId: client.id,
      total: '12.50',
      currency: 'EUR',
    });
    await switchboard.domain.orders.update(order.id, { status: 'paid' });
    await expect.poll(async () => (await health()).failed, { timeout: 5000 }).toBe(1);

    const body = await health();
    expect(WebhookEndpointHealthSchema.parse(body)).toEqual(body);
    expect(body).toMatchObject({
      delivered: 1,
      failed: 1,
      pending: 0,
      attemptsSucceeded: 1,
      attemptsFailed: 1,
      successRate: 0.5,
      disabledReason: null,
      lastFailures: [{ eventType: 'order.paid', statusCode: 400, responseExcerpt: 'no thanks', error: null }],
    });
    expect(Date.now() - Date.parse(body.since)).toBeGreaterThanOrEqual(24 * HOUR);
    expect(Date.now() - Date.parse(body.since)).toBeLessThan(24 * HOUR + 60_000);

    // The delivery log, filtered by event type (with or without a status).
    const log = async (query: string) =>
      (await api(`/webhook-endpoints/${endpoint.id}/deliveries?${query}`)).json();
    const paid = await log('event_type=order.paid');
    expect(paid).toMatchObject({ total: 1, items: [{ eventType: 'order.paid', status: 'dead' }] });
    expect(body.lastFailures[0].deliveryId).toBe(paid.items[0].id);
    expect(await log('event_type=order.created&status=succeeded')).toMatchObject({ total: 1 });
    expect(await log('event_type=order.created&status=dead')).toMatchObject({ total: 0, items: [] });
    expect(await log('event_type=order.*')).toMatchObject({ total: 0 });
  });

  it('lists the latest failed attempts newest first, retried ones included, and the reason it is disabled', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [
      () => new Response('busy', { status: 503 }),
      () => new Response('still busy', { status: 503 }),
      () => new Response('', { status: 410 }),
    ]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher();
    for (let i = 0; i < 3; i++) {
      await dispatcher.runOnce();
      h.clock.advance(HOUR);
    }
    const health = await h.admin.endpointHealth(endpoint.id);
    expect(health.lastFailures.map((f) => [f.statusCode, f.responseExcerpt])).toEqual([
      [410, ''],
      [503, 'still busy'],
      [503, 'busy'],
    ]);
    expect(health).toMatchObject({
      delivered: 0,
      failed: 1,
      pending: 0,
      attemptsSucceeded: 0,
      attemptsFailed: 3,
      successRate: 0,
      lastAttempt: { succeeded: false, statusCode: 410 },
      disabledReason: 'gone',
    });
    await expect(h.admin.endpointHealth('whe_nobody')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lists the deliveries of one event type through the admin service', async () => {
    const h = harness();
    const { endpoint } = await h.admin.createEndpoint({
      url: 'https://bot.example.com/h',
      eventTypes: ['*'],
    });
    await h.fanOut(orderEvent({ type: 'order.paid' }));
    await h.fanOut(orderEvent({ type: 'order.shipped' }));
    await h.fanOut(orderEvent({ type: 'order.paid' }));
    const page = { offset: 0, limit: 10 };
    const paid = await h.admin.listDeliveries({ endpointId: endpoint.id, eventType: 'order.paid' }, page);
    expect(paid.total).toBe(2);
    expect(paid.items.every((d) => d.eventType === 'order.paid')).toBe(true);
    expect((await h.admin.listDeliveries({ eventType: 'order.shipped' }, page)).total).toBe(1);
  });
});

describe('webhook re-sends since a time', () => {
  it('re-sends the dead deliveries created since `from` when no `to` is given, up to now', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [() => new Response('', { status: 404 })]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent()); // before `from`
    h.clock.advance(HOUR);
    const from = new Date(h.clock.now()).toISOString();
    await h.fanOut(orderEvent()); // created at `from`, which is now: counted
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher();
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(3);

    await expect(
      h.admin.resendDeliveries({ endpointId: endpoint.id, from, status: 'dead' }),
    ).resolves.toEqual({ requeued: 2 });
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(5);

    // The same over REST: `to` may be left out.
    const server = await listen(
      createWebhookAdminHandler(createRuntime({ storage: h.storage }), {
        admin: h.admin,
        authenticate: trustEveryone,
      }),
    );
    const response = await fetch(`${server.url}/api/v1/webhook-endpoints/${endpoint.id}/redeliveries`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from, status: 'dead' }),
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ requeued: 2 });
  });
});

describe('webhook event catalogue', () => {
  it('answers every kind with an example of its data, shaped like the real event', async () => {
    const { switchboard, api, register } = await start();
    const receiver = await verifyingReceiver();
    const endpoint = await register(receiver.url, ['order.*']);
    receiver.secrets.push(endpoint.secret);
    const catalogue = await (await api('/webhook-event-types')).json();
    expect(WebhookEventTypesSchema.parse(catalogue)).toEqual(catalogue);
    expect(catalogue.items).toEqual(
      expect.arrayContaining(['order.paid', 'booking.confirmed', 'webhook.test']),
    );
    expect(Object.keys(catalogue.examples).sort()).toEqual([...catalogue.items].sort());
    expect(catalogue.examples['booking.confirmed']).toMatchObject({
      status: 'confirmed',
      previousStatus: 'requested',
      previous: { status: 'requested' },
    });
    expect(catalogue.examples['webhook.test']).toMatchObject({ test: true });

    switchboard.start();
    const client = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const order = await switchboard.domain.orders.create({
      clientId: client.id,
      total: '12.50',
      currency: 'EUR',
    });
    await switchboard.domain.orders.update(order.id, { status: 'paid' });
    await expect.poll(() => receiver.events.length, { timeout: 5000 }).toBe(2);
    const real = receiver.events.find((e) => e.type === 'order.paid')!.payload.data;
    expect(shape(catalogue.examples['order.paid'])).toEqual(shape(real));
    const created = receiver.events.find((e) => e.type === 'order.created')!.payload.data;
    expect(shape(catalogue.examples['order.created'])).toEqual(shape(created));
  });

  it('gives {} for a kind it knows no declaration of, and for a kind outside the catalogue', () => {
    const admin = createWebhookAdmin(createRuntime({ storage: createMemoryStorage() }), {
      eventTypes: ['return.created'],
    });
    expect(admin.eventTypes()).toContain('return.created');
    expect(admin.eventExample('return.created')).toEqual({});
    expect(admin.eventExample('nothing.at_all')).toEqual({});
    expect(admin.eventExample('order.created')).toMatchObject({ status: 'pending', version: 1 });
  });

  it('documents the new routes in a valid OpenAPI document', async () => {
    const storage = createMemoryStorage();
    const handler = createWebhookAdminHandler(createRuntime({ storage }), {
      admin: createWebhookAdmin(createRuntime({ storage })),
      authenticate: trustEveryone,
    });
    const result = await new Validator().validate(JSON.parse(JSON.stringify(handler.openapi)));
    expect(result.errors).toBeUndefined();
    expect(Object.keys(handler.openapi.paths as object)).toEqual(
      expect.arrayContaining(['/webhook-endpoints/{id}/test-events', '/webhook-endpoints/{id}/health']),
    );
  });
});

/** Each key with the type of its value, nested objects as their own shape. */
function shape(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value === null ? 'null' : typeof value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, v]) => [key, shape(v)]),
  );
}

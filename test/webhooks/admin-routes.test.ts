import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { type Authenticate, createRuntime, createSwitchboard, trustEveryone } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  createWebhookAdmin,
  createWebhookAdminHandler,
  createWebhookReceiver,
  type ReceivedWebhook,
} from '../../src/webhooks/index.js';
import { listen } from './support.js';

const scopes =
  (...granted: string[]): Authenticate =>
  async () => ({ kind: 'service', subject: 'test', scopes: new Set(granted) });

async function start(authenticate: Authenticate = trustEveryone) {
  const switchboard = createSwitchboard({
    authenticate,
    webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true }, pollIntervalMs: 50 },
  });
  const server = await listen(switchboard.fetch);
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...init.headers },
    });
  return { switchboard, api };
}

describe('webhook admin routes and the assembled switchboard', () => {
  it('delivers a committed domain event to an endpoint registered over REST', async () => {
    const received: ReceivedWebhook[] = [];
    const secrets: string[] = [];
    const receiver = await listen(
      createWebhookReceiver({
        secrets,
        idempotency: createMemoryStorage().idempotency,
        onEvent: (e) => void received.push(e),
      }),
    );
    const { switchboard, api } = await start();
    const created = await api('/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: `${receiver.url}/hooks`, eventTypes: ['order.*'], description: 'CRM bot' }),
    });
    expect(created.status).toBe(201);
    const endpoint = await created.json();
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(created.headers.get('location')).toBe(`/api/v1/webhook-endpoints/${endpoint.id}`);
    secrets.push(endpoint.secret);
    // The secret is shown once: never in a later read.
    const read = await (await api(`/webhook-endpoints/${endpoint.id}`)).json();
    expect(read.secret).toBeUndefined();
    expect(JSON.stringify(read)).not.toContain(endpoint.secret);

    switchboard.start();
    try {
      const client = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
      const order = await switchboard.domain.orders.create({
        clientId: client.id,
        total: '12.50',
        currency: 'EUR',
      });
      await expect.poll(() => received.length, { timeout: 5000 }).toBe(1);
      expect(received[0]).toMatchObject({
        type: 'order.created',
        payload: { event: 'order.created', data: { id: order.id, customerEmail: 'ada@example.com' } },
      });

      const deliveries = await (
        await api(`/webhook-endpoints/${endpoint.id}/deliveries?status=succeeded`)
      ).json();
      expect(deliveries).toMatchObject({
        total: 1,
        page: 1,
        items: [{ eventType: 'order.created', attempts: 1 }],
      });
      const id = deliveries.items[0].id;
      const attempts = await (
        await api(`/webhook-endpoints/${endpoint.id}/deliveries/${id}/attempts`)
      ).json();
      expect(attempts.items).toMatchObject([{ number: 1, statusCode: 200, succeeded: true }]);
      const again = await api(`/webhook-endpoints/${endpoint.id}/deliveries/${id}/redeliveries`, {
        method: 'POST',
      });
      expect(again.status).toBe(202);
      // The receiver answers the re-sent copy 200 without processing it twice.
      await expect
        .poll(async () => (await switchboard.webhooks!.admin.getDelivery(id)).status)
        .toBe('succeeded');
      expect(received).toHaveLength(1);
    } finally {
      await switchboard.close();
    }
  });

  it('rotates a secret with an overlap: both secrets sign until the old one expires', async () => {
    const { switchboard, api } = await start();
    const endpoint = await (
      await api('/webhook-endpoints', {
        method: 'POST',
        body: JSON.stringify({ url: 'https://bot.example.com/h', eventTypes: ['*'] }),
      })
    ).json();
    const rotated = await api(`/webhook-endpoints/${endpoint.id}/secrets`, {
      method: 'POST',
      body: JSON.stringify({ overlapSeconds: 3600 }),
    });
    expect(rotated.status).toBe(201);
    const body = await rotated.json();
    expect(body.secret).not.toBe(endpoint.secret);
    expect(body.secrets).toHaveLength(2);
    expect(body.secrets[0].expiresAt).toBeNull();
    expect(Date.parse(body.secrets[1].expiresAt) - Date.parse(body.secrets[0].createdAt)).toBe(3600_000);
    const stored = await switchboard.storage.webhooks.endpoints.get(endpoint.id);
    expect(stored!.secrets.map((s) => s.secret)).toEqual([body.secret, endpoint.secret]);
  });

  it('changes, lists and removes endpoints; answers problems as problem+json', async () => {
    const { api } = await start();
    const endpoint = await (
      await api('/webhook-endpoints', {
        method: 'POST',
        body: JSON.stringify({ url: 'https://bot.example.com/h', eventTypes: ['order.created'] }),
      })
    ).json();
    const patched = await api(`/webhook-endpoints/${endpoint.id}`, {
      method: 'PATCH',
      headers: { 'if-match': '"1"' },
      body: JSON.stringify({ eventTypes: ['order.*', 'client.created'], enabled: false }),
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      enabled: false,
      disabledReason: 'manual',
      version: 2,
      eventTypes: ['order.*', 'client.created'],
    });
    const stale = await api(`/webhook-endpoints/${endpoint.id}`, {
      method: 'PATCH',
      headers: { 'if-match': '"1"' },
      body: '{"description":"x"}',
    });
    expect(stale.status).toBe(412);

    const list = await (await api('/webhook-endpoints?limit=10')).json();
    expect(list).toMatchObject({ total: 1, items: [{ id: endpoint.id }] });
    const types = await (await api('/webhook-event-types')).json();
    expect(types.items).toEqual(
      expect.arrayContaining(['order.created', 'client.updated', 'webhook_endpoint.disabled']),
    );

    const insecure = await api('/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: 'ftp://bot.example.com/h', eventTypes: ['*'] }),
    });
    expect(insecure.status).toBe(422);
    expect(insecure.headers.get('content-type')).toBe('application/problem+json');
    expect(await insecure.json()).toMatchObject({ errors: [{ field: 'url', code: 'invalid_url' }] });
    const badPattern = await api('/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: 'https://a.example.com', eventTypes: ['Order'] }),
    });
    expect(badPattern.status).toBe(422);

    expect((await api(`/webhook-endpoints/${endpoint.id}`, { method: 'DELETE' })).status).toBe(204);
    const gone = await api(`/webhook-endpoints/${endpoint.id}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ code: 'not_found' });
  });

  it('needs admin.webhooks.read to read and admin.webhooks.write to change', async () => {
    const { api } = await start(scopes('admin.webhooks.read'));
    expect((await api('/webhook-endpoints')).status).toBe(200);
    const denied = await api('/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: 'https://a.example.com', eventTypes: ['*'] }),
    });
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ code: 'forbidden' });
    const { api: none } = await start(scopes('crm.clients.read'));
    expect((await none('/webhook-endpoints')).status).toBe(403);
  });

  it('refuses private and loopback receiver URLs by default', async () => {
    const switchboard = createSwitchboard({ authenticate: trustEveryone });
    const server = await listen(switchboard.fetch);
    for (const url of [
      'https://127.0.0.1/h',
      'https://169.254.169.254/latest',
      'https://[::1]/h',
      'https://localhost/h',
      'https://10.1.2.3/h',
    ]) {
      const response = await fetch(`${server.url}/api/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url, eventTypes: ['*'] }),
      });
      expect(response.status, url).toBe(422);
    }
  });

  it('documents every admin route in a valid OpenAPI document', async () => {
    const storage = createMemoryStorage();
    const handler = createWebhookAdminHandler(createRuntime({ storage }), {
      admin: createWebhookAdmin(createRuntime({ storage })),
      authenticate: trustEveryone,
    });
    const result = await new Validator().validate(JSON.parse(JSON.stringify(handler.openapi)));
    expect(result.errors).toBeUndefined();
    expect(Object.keys(handler.openapi.paths as object)).toEqual(
      expect.arrayContaining([
        '/webhook-endpoints',
        '/webhook-endpoints/{id}/secrets',
        '/webhook-endpoints/{id}/deliveries/{deliveryId}/attempts',
        '/webhook-event-types',
      ]),
    );
  });

  it('tells other endpoints when an endpoint is disabled by 410 Gone', async () => {
    const { switchboard } = await start();
    const gone = await listen(async () => new Response(null, { status: 410 }));
    const types: string[] = [];
    const watcher = await listen(async (request) => {
      types.push(JSON.parse(await request.text()).event);
      return new Response('ok');
    });
    const admin = switchboard.webhooks!.admin;
    const { endpoint } = await admin.createEndpoint({ url: `${gone.url}/h`, eventTypes: ['order.*'] });
    await admin.createEndpoint({ url: `${watcher.url}/h`, eventTypes: ['order.*', 'webhook_endpoint.*'] });
    switchboard.start();
    try {
      const client = await switchboard.domain.clients.create({ name: 'Bo', email: 'bo@example.com' });
      await switchboard.domain.orders.create({ clientId: client.id, total: '1.00', currency: 'EUR' });
      await expect
        .poll(() => types.sort(), { timeout: 5000 })
        .toEqual(['order.created', 'webhook_endpoint.disabled']);
      expect(await admin.getEndpoint(endpoint.id)).toMatchObject({ enabled: false, disabledReason: 'gone' });
    } finally {
      await switchboard.close();
    }
  });
});

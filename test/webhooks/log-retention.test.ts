/**
 * The delivery log's retention per endpoint (issue 33, item 6): `logRetentionDays`, bounded, set and
 * cleared over REST and GraphQL, described in OpenAPI, and honoured by the storage's sweep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard, trustEveryone } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/serve.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { until } from '../support/until.js';

type Json = Record<string, unknown>;
const DAY = 86_400_000;

describe('an endpoint’s own log retention', () => {
  const storage = createMemoryStorage();
  let switchboard: Switchboard;
  const servers: NodeServer[] = [];
  const listen = async (fetch: (request: Request) => Promise<Response>): Promise<NodeServer> => {
    const server = await serve({ fetch, port: 0, shutdownSignals: [] });
    servers.push(server);
    return server;
  };
  let base = '';
  let receiver = '';

  const call = async (
    path: string,
    method = 'GET',
    json?: unknown,
  ): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const gql = async (query: string, variables: Json = {}): Promise<Json> =>
    (await call('/graphql', 'POST', { query, variables })).body;

  beforeAll(async () => {
    switchboard = createSwitchboard({
      storage,
      authenticate: trustEveryone,
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true }, pollIntervalMs: 50 },
      relayIntervalMs: 50,
    });
    base = (await listen(switchboard.fetch)).url;
    receiver = `${(await listen(async () => new Response('ok'))).url}/hooks`;
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await switchboard?.close();
  });

  it('is set on create, shown, cleared with null, and bounded (1 to 400 days, 422 beyond) over REST', async () => {
    const created = await call('/api/v1/webhook-endpoints', 'POST', {
      url: receiver,
      eventTypes: ['order.*'],
      logRetentionDays: 7,
    });
    expect(created.status).toBe(201);
    expect(created.body.logRetentionDays).toBe(7);
    const id = String(created.body.id);
    expect((await call(`/api/v1/webhook-endpoints/${id}`)).body.logRetentionDays).toBe(7);
    const cleared = await call(`/api/v1/webhook-endpoints/${id}`, 'PATCH', { logRetentionDays: null });
    expect(cleared.body.logRetentionDays).toBeNull();
    expect((await call(`/api/v1/webhook-endpoints/${id}`, 'PATCH', { logRetentionDays: 400 })).status).toBe(
      200,
    );
    for (const wrong of [0, 401, 1.5, '7']) {
      const refused = await call(`/api/v1/webhook-endpoints/${id}`, 'PATCH', { logRetentionDays: wrong });
      expect(refused.status, String(wrong)).toBe(422);
      expect(refused.body).toMatchObject({ code: 'validation_failed' });
      expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'logRetentionDays' })]);
    }
    const plain = await call('/api/v1/webhook-endpoints', 'POST', { url: receiver, eventTypes: ['order.*'] });
    expect(plain.body.logRetentionDays).toBeNull();
  });

  it('is described in the OpenAPI document of the endpoint and its inputs', async () => {
    const document = (await call('/api/v1/openapi.json')).body as {
      components: { schemas: Record<string, { properties?: Json }> };
    };
    expect(JSON.stringify(document.components.schemas.WebhookEndpoint)).toContain('logRetentionDays');
    const bodies = JSON.stringify(document).match(/"logRetentionDays":\{[^}]*"maximum":400/g) ?? [];
    expect(bodies.length).toBeGreaterThanOrEqual(2); // the create and change bodies
  });

  it('is set and cleared over GraphQL, with the same bounds', async () => {
    const created = await gql(
      `mutation ($input: CreateWebhookEndpointInput!) {
        createWebhookEndpoint(input: $input) { endpoint { id logRetentionDays } }
      }`,
      { input: { url: receiver, eventTypes: ['order.*'], logRetentionDays: 3 } },
    );
    const endpoint = (created.data as Json).createWebhookEndpoint as {
      endpoint: { id: string; logRetentionDays: number };
    };
    expect(endpoint.endpoint.logRetentionDays).toBe(3);
    const update = `mutation ($id: ID!, $input: UpdateWebhookEndpointInput!) {
      updateWebhookEndpoint(id: $id, input: $input) { logRetentionDays }
    }`;
    const cleared = await gql(update, { id: endpoint.endpoint.id, input: { logRetentionDays: null } });
    expect(cleared).toEqual({ data: { updateWebhookEndpoint: { logRetentionDays: null } } });
    const refused = await gql(update, { id: endpoint.endpoint.id, input: { logRetentionDays: 0 } });
    expect(JSON.stringify(refused.errors)).toContain('validation_failed');
  });

  it('lets the sweep prune an endpoint’s finished deliveries after its own days, the others’ after the default', async () => {
    const short = await call('/api/v1/webhook-endpoints', 'POST', {
      url: receiver,
      eventTypes: ['client.created'],
      logRetentionDays: 1,
    });
    const usual = await call('/api/v1/webhook-endpoints', 'POST', {
      url: receiver,
      eventTypes: ['client.created'],
    });
    switchboard.start();
    await switchboard.domain.clients.create({
      name: 'Kept Briefly',
      email: `brief.${Date.now()}@example.com`,
    });
    const succeeded = async (endpointId: unknown) =>
      (
        await storage.webhooks.deliveries.list(
          { endpointId: String(endpointId), status: 'succeeded' },
          { offset: 0, limit: 10 },
        )
      ).total;
    await until(async () => (await succeeded(short.body.id)) === 1 && (await succeeded(usual.body.id)) === 1);

    await storage.sweep!({ now: Date.now() + 2 * DAY });
    expect(await succeeded(short.body.id)).toBe(0);
    expect(await succeeded(usual.body.id)).toBe(1);
    await storage.sweep!({ now: Date.now() + 31 * DAY });
    expect(await succeeded(usual.body.id)).toBe(0);
  });
});

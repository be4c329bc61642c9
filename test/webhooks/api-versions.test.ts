/**
 * One wire shape per API version, everywhere (issue 29, item 4): an endpoint registered on `/api/v{n}`
 * is pinned to version n and is sent each record exactly as `GET /api/v{n}/…` answers it, for every
 * resource that declares versions (read from the model), with the event's extras kept; PATCH moves a
 * receiver to another version from the next event on; GraphQL shows the current shape beside the old
 * one. Over loopback HTTP with real receivers, on memory and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_RESOURCES, CORE_RESOURCES } from '../../src/core/resources/built-ins/index.js';
import type { Resource } from '../../src/core/resources/define.js';
import { PREVIOUS_RECORD_FIELD, wireOf } from '../../src/core/resources/wire.js';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { ADMIN_KEY, closeConsoles, get, post, signIn, startConsoles } from '../console/support.js';
import { type ReceivedWebhook, startReceiver } from '../resources/receiver.js';
import { bothStorages } from '../setup/database.js';
import { until } from '../support/until.js';

const ADMIN = 'sbk_api_versions_admin_key_0123456789abcdef';
const VERSIONS = [1, 2] as const;

/** Every resource of the model that shows itself differently in some version. */
const VERSIONED = [...CORE_RESOURCES, ...BUILT_IN_RESOURCES].filter((r) => Object.keys(r.versions).length);

/** A v1 create body of each versioned resource, but for its references to a client (filled in). */
const INPUTS: Readonly<Record<string, Record<string, unknown>>> = {
  order: { total: '12.50', currency: 'EUR' },
};

type Json = Record<string, unknown>;

const pick = (data: Json, keys: readonly string[]): Json =>
  Object.fromEntries(keys.filter((k) => k in data).map((k) => [k, data[k]]));
const omit = (data: Json, keys: readonly string[]): Json =>
  Object.fromEntries(Object.entries(data).filter(([k]) => !keys.includes(k)));
/** The fields of a record as version n shows it, from the model. */
const recordKeys = (resource: Resource, version: number): string[] =>
  Object.keys(wireOf(resource, version).recordSchema.shape);

describe.each(bothStorages())('webhook payloads per API version on %s', (_, makeStorage) => {
  let switchboard: Switchboard;
  let server: NodeServer;
  const receivers: NodeServer[] = [];
  /** What the endpoint registered on each version received. */
  const received: Record<number, ReceivedWebhook[]> = {};
  const endpointIds: Record<number, string> = {};
  let clientId = '';

  const call = async (
    path: string,
    method = 'GET',
    json?: unknown,
  ): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as Json };
  };
  const receiver = async (): Promise<{ url: string; received: ReceivedWebhook[] }> => {
    const started = await startReceiver();
    receivers.push(started.server);
    return { url: `${started.server.url}/hooks`, received: started.received };
  };
  const arrival = async (inbox: ReceivedWebhook[], event: string, id: string): Promise<Json> => {
    const find = () => inbox.find((w) => w.event === event && w.data.id === id);
    await until(() => find() !== undefined, `${event} of ${id}`);
    return find()!.data;
  };

  beforeAll(async () => {
    switchboard = createSwitchboard({
      storage: await makeStorage(),
      oauth: { adminApiKey: ADMIN },
      rest: {
        versions: [
          { basePath: '/api/v1', apiVersion: 1 },
          { basePath: '/api/v2', apiVersion: 2 },
        ],
      },
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
      relayIntervalMs: 50,
    });
    switchboard.start();
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    await switchboard.oauth!.ready;
    for (const version of VERSIONS) {
      const inbox = await receiver();
      received[version] = inbox.received;
      const endpoint = await call(`/api/v${version}/webhook-endpoints`, 'POST', {
        url: inbox.url,
        eventTypes: VERSIONED.flatMap((r) => r.eventTypes),
      });
      expect(endpoint.status).toBe(201);
      endpointIds[version] = String(endpoint.body.id);
    }
    const client = await call('/api/v1/clients', 'POST', { name: 'Ada', email: 'ada@example.com' });
    clientId = String(client.body.id);
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(receivers.map((r) => r.close()));
    await switchboard?.close();
  });

  it('an endpoint is pinned to the version it was registered on, and shows it', async () => {
    for (const version of VERSIONS) {
      const { body } = await call(`/api/v1/webhook-endpoints/${endpointIds[version]}`);
      expect(body.apiVersion).toBe(version);
    }
    const document = (await call('/api/v2/openapi.json')).body as {
      components: { schemas: Record<string, { properties: Json }> };
    };
    expect(document.components.schemas.WebhookEndpoint!.properties).toHaveProperty('apiVersion');
  });

  it('the event catalogue of each version gives its examples in that version’s shapes', async () => {
    for (const resource of VERSIONED)
      for (const version of VERSIONS) {
        const { body } = await call(`/api/v${version}/webhook-event-types`);
        const example = (body.examples as Record<string, Json>)[resource.events.created]!;
        const shape = wireOf(resource, version).recordSchema;
        expect(shape.safeParse(pick(example, recordKeys(resource, version))).success, `v${version}`).toBe(
          true,
        );
      }
  });

  it('there is a resource whose versions differ, and an input for each', () => {
    expect(VERSIONED.length).toBeGreaterThan(0);
    for (const resource of VERSIONED)
      expect(INPUTS, `add a create input for ${resource.name}`).toHaveProperty(resource.name);
  });

  it.each(VERSIONED.map((r) => [r.name, r] as const))(
    'each endpoint receives the %s record as its version’s GET answers it, created and moved, with the event’s extras',
    async (_, resource) => {
      const input: Json = { ...INPUTS[resource.name] };
      for (const [field, target] of Object.entries(resource.relations)) {
        expect(target, `${resource.name}.${field}: only references to a client are filled in`).toBe('client');
        input[field] = clientId;
      }
      const made = await call(`/api/v1/${resource.plural}`, 'POST', input);
      expect(made.status).toBe(201);
      const id = String(made.body.id);
      const everyKey = [...new Set(VERSIONS.flatMap((v) => recordKeys(resource, v)))];

      /** The delivered data against the version's GET: the record equal, the extras the same in every version. */
      const compare = async (event: string, before?: Record<number, Json>): Promise<Record<number, Json>> => {
        const answers: Record<number, Json> = {};
        const extras: Json[] = [];
        for (const version of VERSIONS) {
          const data = await arrival(received[version]!, event, id);
          const get = await call(`/api/v${version}/${resource.plural}/${id}`);
          expect(get.status).toBe(200);
          const keys = recordKeys(resource, version);
          expect(pick(data, keys), `${event} in v${version}`).toEqual(get.body);
          // Nothing of another version's shape is left at the top level.
          const foreign = everyKey.filter((k) => !keys.includes(k));
          expect(Object.keys(data).filter((k) => foreign.includes(k))).toEqual([]);
          if (before) expect(data[PREVIOUS_RECORD_FIELD], `previous in v${version}`).toEqual(before[version]);
          extras.push(omit(data, [...keys, PREVIOUS_RECORD_FIELD]));
          answers[version] = get.body;
        }
        for (const other of extras.slice(1)) expect(other).toEqual(extras[0]);
        if (resource.eventData) expect(Object.keys(extras[0]!).length).toBeGreaterThan(0);
        return answers;
      };

      const created = await compare(resource.events.created);
      const lifecycle = resource.lifecycle;
      if (!lifecycle || !resource.changes.update) return;
      const next = lifecycle.states[lifecycle.initial]!.to[0]!;
      const moved = await call(`/api/v1/${resource.plural}/${id}`, 'PATCH', { [lifecycle.field]: next });
      expect(moved.status).toBe(200);
      await compare(resource.moveEvents[next]!, created);
      for (const version of VERSIONS) {
        const data = await arrival(received[version]!, resource.moveEvents[next]!, id);
        expect(data[resource.previousStateField!]).toBe(lifecycle.initial);
      }
    },
  );

  it('PATCH apiVersion moves a receiver to another version’s shapes from the next event on', async () => {
    const inbox = await receiver();
    const endpoint = await call('/api/v1/webhook-endpoints', 'POST', {
      url: inbox.url,
      eventTypes: ['order.created'],
    });
    const endpointId = String(endpoint.body.id);
    expect(endpoint.body.apiVersion).toBe(1);
    const order = (id: number) =>
      call('/api/v1/orders', 'POST', { clientId, total: `${id}.00`, currency: 'EUR' });
    const first = String((await order(1)).body.id);
    expect((await arrival(inbox.received, 'order.created', first)).total).toBe('1.00');

    const patched = await call(`/api/v1/webhook-endpoints/${endpointId}`, 'PATCH', { apiVersion: 2 });
    expect(patched.status).toBe(200);
    expect(patched.body.apiVersion).toBe(2);
    const second = String((await order(2)).body.id);
    expect((await arrival(inbox.received, 'order.created', second)).total).toEqual({
      amount: '2.00',
      currency: 'EUR',
    });

    // The delivery made before keeps its bytes: a retry sends what was sent.
    const log = await call(`/api/v1/webhook-endpoints/${endpointId}/deliveries`);
    const bodies = (log.body.items as { payload: string }[]).map((d) => JSON.parse(d.payload).data);
    expect(bodies.find((d) => d.id === first).total).toBe('1.00');

    const unknown = await call(`/api/v1/webhook-endpoints/${endpointId}`, 'PATCH', { apiVersion: 3 });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body)).toContain('apiVersion');
  });

  it('GraphQL shows the current shape beside the old one, and registers endpoints with it', async () => {
    const made = await call('/api/v2/orders', 'POST', {
      clientId,
      total: { amount: '7.25', currency: 'EUR' },
    });
    const gql = async (query: string, variables: Json = {}) =>
      (await call('/graphql', 'POST', { query, variables })).body as { data?: Json; errors?: unknown[] };
    const answer = await gql(
      'query ($id: ID!) { order(id: $id) { total currency totalMoney { amount currency } } }',
      {
        id: made.body.id,
      },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.order).toEqual({
      total: '7.25',
      currency: 'EUR',
      totalMoney: { amount: '7.25', currency: 'EUR' },
    });
    const fields = await gql(
      '{ __type(name: "Order") { fields(includeDeprecated: true) { name isDeprecated } } }',
    );
    const total = (fields.data!.__type as { fields: { name: string; isDeprecated: boolean }[] }).fields.find(
      (f) => f.name === 'total',
    );
    expect(total?.isDeprecated).toBe(true);

    const registered = await gql(
      'mutation ($url: String!) { createWebhookEndpoint(input: { url: $url, eventTypes: ["order.*"] }) { endpoint { apiVersion } } }',
      { url: `${server.url}/hooks` },
    );
    expect(registered.errors).toBeUndefined();
    expect(registered.data!.createWebhookEndpoint).toEqual({ endpoint: { apiVersion: 2 } });
  });
});

describe('the console', () => {
  it('registers an endpoint with the current version and shows it', async () => {
    const storage = createMemoryStorage();
    const consoles = await startConsoles(() => storage, 1);
    try {
      const [{ base, switchboard }] = consoles as [(typeof consoles)[number]];
      const session = await signIn(base, { api_key: ADMIN_KEY });
      const created = await post(base, '/webhooks', session, {
        url: 'https://hooks.example.com/receive',
        eventTypes: 'order.*',
      });
      // See Other to the new endpoint's page.
      expect(created.status).toBe(303);
      const id = /webhooks\/(whe_[^?]+)/.exec(created.headers.get('location') ?? '')?.[1];
      const endpoint = await switchboard.webhooks!.admin.getEndpoint(id!);
      expect(endpoint.apiVersion).toBe(2);
      const page = await (await get(base, `/webhooks/${id}`, session)).text();
      expect(page).toContain('<dt>API version</dt><dd>v2');
    } finally {
      await closeConsoles(consoles);
    }
  });
});

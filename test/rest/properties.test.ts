import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients as clientDeclaration, validate } from '../../src/index.js';
import { createClient, type RestServer, startRestServer } from './support.js';

let api: RestServer;
// biome-ignore lint/suspicious/noExplicitAny: an arbitrary JSON document.
let document: any;
const ids: string[] = [];
beforeAll(async () => {
  api = await startRestServer({ limits: { maxBodyBytes: 2048 } });
  for (let i = 0; i < 3; i++)
    ids.push((await createClient(api, { name: `Seed ${i}`, email: `seed${i}@example.com` })).id);
  const order = await api.call(`/api/v1/clients/${ids[0]}/orders`, {
    method: 'POST',
    json: { total: '1.00', currency: 'EUR' },
  });
  ids.push((await order.json()).id);
  document = await (await api.call('/api/v1/openapi.json')).json();
});
afterAll(async () => {
  await api.close();
});

const templates = [
  '/clients',
  '/clients/{id}',
  '/clients/{id}/orders',
  '/users/{id}/orders',
  '/users/me/orders',
  '/orders/{id}',
  '/chatbots/{id}/messages',
  '/messages/{id}',
  '/openapi.json',
];

const segment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('cli_1', 'cli_2', 'cli_3', 'ord_4', 'me', 'bot') },
  { weight: 1, arbitrary: fc.constantFrom('', '..', '%', '%2F', '%E0%A4%A') },
  { weight: 1, arbitrary: fc.webSegment() },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map(encodeURIComponent) },
);
const path = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(fc.constantFrom(...templates), segment).map(([t, id]) => t.replace('{id}', id)),
  },
  { weight: 1, arbitrary: fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)) },
);
const validClient = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 20 }),
    email: fc.emailAddress(),
    phone: fc.constantFrom(null, '+33 6 12 34 56 78'),
    city: fc.constantFrom(null, 'Paris'),
  },
  { requiredKeys: ['name', 'email'] },
);
const fieldValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.emailAddress(),
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
);
const clientish = fc.record(
  {
    name: fieldValue,
    email: fc.oneof(fc.emailAddress(), fieldValue),
    phone: fieldValue,
    city: fieldValue,
    status: fc.constantFrom('paid', 'shipped', 'pending', 'lost'),
    total: fc.oneof(
      fc.constantFrom('1.00', '12', '-1', 'abc'),
      fc.record({ amount: fc.string(), currency: fc.string() }),
    ),
    currency: fc.constantFrom('EUR', 'eur', ''),
    visitorId: fieldValue,
    content: fieldValue,
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  validClient.map((value) => JSON.stringify(value)),
  validClient.map((value) =>
    JSON.stringify({ ...value, phone: value.phone ?? null, city: value.city ?? null }),
  ),
  fc.constantFrom(
    '{"status":"paid"}',
    '{"status":"shipped"}',
    '{"total":"3.50","currency":"EUR"}',
    '{"visitorId":"v","content":"hi"}',
  ),
  clientish.map((value) => JSON.stringify(value)),
  fc.json(),
  fc.string({ maxLength: 200 }),
  fc.string({ minLength: 2100, maxLength: 2500 }),
  fc.constant('{"name":'),
  fc.constant(undefined),
);
/** Each operation with the body that fits it, so successes are as common as failures. */
const operations: [string, string, fc.Arbitrary<string | undefined>][] = [
  ['GET', '/clients', fc.constant(undefined)],
  ['POST', '/clients', validClient.map((v) => JSON.stringify(v))],
  ['GET', '/clients/{id}', fc.constant(undefined)],
  ['PUT', '/clients/{id}', validClient.map((v) => JSON.stringify({ phone: null, city: null, ...v }))],
  ['PATCH', '/clients/{id}', validClient.map((v) => JSON.stringify({ city: v.city ?? 'Lyon' }))],
  ['DELETE', '/clients/{id}', fc.constant(undefined)],
  ['GET', '/clients/{id}/orders', fc.constant(undefined)],
  ['POST', '/clients/{id}/orders', fc.constant('{"total":"3.50","currency":"EUR"}')],
  ['GET', '/users/{user_id}/orders', fc.constant(undefined)],
  ['GET', '/orders/{id}', fc.constant(undefined)],
  [
    'PATCH',
    '/orders/{id}',
    fc.constantFrom('{"status":"paid"}', '{"status":"shipped"}', '{"status":"cancelled"}'),
  ],
  ['GET', '/chatbots/{chatbot_id}/messages', fc.constant(undefined)],
  ['POST', '/chatbots/{chatbot_id}/messages', fc.constant('{"visitorId":"v","content":"hi"}')],
  ['GET', '/messages/{id}', fc.constant(undefined)],
];
const target = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.tuple(fc.constantFrom(...operations), segment).chain(([[method, template, fitting], id]) =>
      fc.record({
        method: fc.constant(method),
        // Only a plain segment keeps the request on the template ('', '..' and '%2F' move it elsewhere).
        template: fc.constant(/^[\w-]+$/.test(id) || !template.includes('{') ? template : undefined),
        path: fc.constant(template.replace(/\{\w+\}/, id)),
        body: fc.oneof({ weight: 3, arbitrary: fitting }, { weight: 2, arbitrary: body }),
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
      template: fc.constant(undefined),
      path,
      body,
    }),
  },
);
const request = fc.record({
  target,
  query: fc.oneof(
    fc.constant(''),
    fc.webQueryParameters().map((q) => `?${q}`),
    fc.constantFrom(
      '?page=0',
      '?limit=1000',
      '?page=2&limit=1',
      '?status=lost',
      '?page=abc',
      '?limit=1e3',
      '?city=&name=%00',
    ),
  ),
  contentType: fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'application/merge-patch+json',
        'text/plain',
        'application/json; charset=latin1',
        null,
      ),
    },
  ),
  token: fc.oneof(
    { weight: 6, arbitrary: fc.constant('admin') },
    { weight: 1, arbitrary: fc.constantFrom('user:cli_1', 'scopes:crm.clients.read', 'nonsense', null) },
  ),
  ifMatch: fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom('"1"', '"2"', '*', 'W/"1"', 'garbage', '"1", "2"') },
  ),
  idempotencyKey: fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom('k1', 'k2', ' ', 'x'.repeat(300)) },
  ),
});

describe('any request', () => {
  it('gets a documented, well-formed success or problem document, never a 500, and leaves no record half-written', async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ target: { method, template, path, body }, ...r }) => {
        const headers = new Headers();
        if (r.contentType) headers.set('content-type', r.contentType);
        if (r.ifMatch) headers.set('if-match', r.ifMatch);
        if (r.idempotencyKey) headers.set('idempotency-key', r.idempotencyKey);
        const hasBody = body !== undefined && !['GET', 'HEAD'].includes(method);
        const response = await api.call(`/api/v1${path}${r.query}`, {
          method,
          token: r.token,
          headers,
          body: hasBody ? body : undefined,
        });
        expect(response.status).toBeLessThan(500);
        // An operation's answers are the ones its documentation lists (404/405 may come from the path).
        if (template !== undefined && ![404, 405].includes(response.status)) {
          const documented = document.paths[template][method.toLowerCase()].responses;
          expect(Object.keys(documented), `${method} ${template}`).toContain(String(response.status));
        }
        const text = await response.text();
        if (response.status >= 400) {
          expect(response.headers.get('content-type')).toBe('application/problem+json');
          if (method === 'HEAD') return;
          const problem = JSON.parse(text);
          expect(problem).toMatchObject({
            status: response.status,
            type: expect.stringMatching(/^\/problems\/[a-z_]+$/),
          });
          expect(typeof problem.title).toBe('string');
          expect(typeof problem.detail).toBe('string');
          expect(typeof problem.code).toBe('string');
          for (const error of problem.errors ?? []) {
            expect(error).toEqual({
              field: expect.any(String),
              code: expect.any(String),
              message: expect.any(String),
            });
          }
        } else if ([204, 304].includes(response.status) || method === 'HEAD') {
          expect(text).toBe('');
        } else {
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          expect(() => JSON.parse(text)).not.toThrow();
        }
      }),
      { numRuns: 500 },
    );

    // Every stored client is whole and valid, and exists exactly when its events say it does.
    const all = (resource: string, where = {}) =>
      api.storage.resources.list(resource, {
        where,
        sort: { field: 'createdAt', descending: false },
        range: { offset: 0, limit: 10_000 },
      });
    const { items: clients } = await all('client');
    for (const client of clients) {
      const { name, email, phone, city } = client;
      expect(validate(clientDeclaration.createInput, { name, email, phone, city })).toEqual({
        name,
        email,
        phone,
        city,
      });
      const { items: orders } = await all('order', { clientId: client.id });
      for (const order of orders) expect(order.clientId).toBe(client.id);
    }
    expect(new Set(clients.map((c) => c.email)).size).toBe(clients.length);
    const events = await api.events();
    const created = events.filter((e) => e.type === 'client.created').map((e) => e.data.id);
    const deleted = new Set(events.filter((e) => e.type === 'client.deleted').map((e) => e.data.id));
    expect(clients.map((c) => c.id).sort()).toEqual(created.filter((id) => !deleted.has(id)).sort());
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import { createClient, type RestServer, startRestServer, testAuthenticate } from './support.js';

let api: RestServer;
afterEach(async () => {
  await api?.close();
});

const versions = [
  {
    basePath: '/api/v1',
    apiVersion: 1 as const,
    deprecation: {
      deprecatedAt: new Date('2026-06-01T00:00:00Z'),
      sunsetAt: new Date('2027-06-01T00:00:00Z'),
      successor: '/api/v2',
    },
  },
  { basePath: '/api/v2', apiVersion: 2 as const },
];

describe('versions in the path', () => {
  it('a deprecated version carries Deprecation, Sunset and a successor Link on every answer', async () => {
    api = await startRestServer({ versions });
    for (const response of [await api.call('/api/v1/clients'), await api.call('/api/v1/nothing-here')]) {
      expect(response.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 5, 1) / 1000}`);
      expect(response.headers.get('sunset')).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
      expect(response.headers.get('link')).toContain('</api/v2>; rel="successor-version"');
    }
    const current = await api.call('/api/v2/clients');
    expect(current.headers.get('deprecation')).toBeNull();
    expect(current.headers.get('sunset')).toBeNull();
  });

  it('v2 differs in one visible way: an order’s total is a money object', async () => {
    api = await startRestServer({ versions });
    const client = await createClient(api, { name: 'Ada', email: 'ada@example.com' });
    const v2 = await api.call(`/api/v2/clients/${client.id}/orders`, {
      method: 'POST',
      json: { total: { amount: '12.50', currency: 'EUR' } },
    });
    expect(v2.status).toBe(201);
    const created = await v2.json();
    expect(created.total).toEqual({ amount: '12.50', currency: 'EUR' });
    expect(created.currency).toBeUndefined();
    expect(v2.headers.get('location')).toBe(`/api/v2/orders/${created.id}`);
    const v1 = await (await api.call(`/api/v1/orders/${created.id}`)).json();
    expect(v1).toMatchObject({ total: '12.50', currency: 'EUR' });
    const flat = await api.call(`/api/v2/clients/${client.id}/orders`, {
      method: 'POST',
      json: { total: '12.50', currency: 'EUR' },
    });
    expect(flat.status).toBe(422);
  });

  it('each version serves its own OpenAPI document; the deprecated one marks operations deprecated', async () => {
    api = await startRestServer({ versions });
    const v1 = await (await api.call('/api/v1/openapi.json', { token: null })).json();
    const v2 = await (await api.call('/api/v2/openapi.json', { token: null })).json();
    expect(v1.servers).toEqual([{ url: '/api/v1' }]);
    expect(v1.paths['/clients'].get.deprecated).toBe(true);
    expect(v2.paths['/clients'].get.deprecated).toBeUndefined();
    expect(v2.components.schemas.Order.properties.total.required).toEqual(['amount', 'currency']);
    expect(v1.components.schemas.Order.properties.total.type).toBe('string');
  });

  it("lists OAuth administration in every version's document, from the host's root, as it is served", async () => {
    const adminApiKey = 'sbk_test_admin_key_0123456789abcdefghijklmnop';
    const switchboard = createSwitchboard({ oauth: { adminApiKey }, rest: { versions } });
    const admin = { authorization: `Bearer ${adminApiKey}` };
    for (const base of ['/api/v1', '/api/v2']) {
      const document = await (
        await switchboard.fetch(new Request(`http://localhost${base}/openapi.json`))
      ).json();
      for (const path of ['/oauth/clients', '/oauth/api-keys', '/oauth/grants']) {
        // A path-level server: the path is not under the version's base path.
        expect(document.paths[path].servers).toEqual([expect.objectContaining({ url: '/' })]);
        expect(document.paths[path].get.responses['429']).toBeDefined();
        const served = await switchboard.fetch(new Request(`http://localhost${path}`, { headers: admin }));
        expect(served.status).toBe(200);
        expect(served.headers.get('ratelimit')).toMatch(/^"read";r=\d+;t=\d+$/);
      }
      // The business clients stay where they were: the two `clients` paths do not meet.
      expect(document.paths['/clients'].get.operationId).toBe('listClients');
      const page = await (await switchboard.fetch(new Request(`http://localhost${base}/docs`))).text();
      expect(page).toContain('/oauth/api-keys');
      expect(page).not.toContain(`${base}/oauth/`);
    }
  });

  it('createSwitchboard mounts the configured versions, and only /api/v1 by default', async () => {
    const both = createSwitchboard({ authenticate: testAuthenticate, rest: { versions } });
    const auth = { authorization: 'Bearer admin' };
    const v2 = await both.fetch(new Request('http://localhost/api/v2/clients', { headers: auth }));
    expect(v2.status).toBe(200);
    const v1 = await both.fetch(new Request('http://localhost/api/v1/clients', { headers: auth }));
    expect(v1.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 5, 1) / 1000}`);
    // The webhook admin routes live on their own mount but are listed in the v1 document.
    const document = await (await both.fetch(new Request('http://localhost/api/v1/openapi.json'))).json();
    expect(document.paths['/webhook-endpoints']).toBeDefined();
    expect(document.paths['/clients']).toBeDefined();
    const plain = createSwitchboard({ authenticate: testAuthenticate });
    expect(
      (await plain.fetch(new Request('http://localhost/api/v1/clients', { headers: auth }))).status,
    ).toBe(200);
    expect(
      (await plain.fetch(new Request('http://localhost/api/v2/clients', { headers: auth }))).status,
    ).toBe(404);
    const off = createSwitchboard({ authenticate: testAuthenticate, rest: false });
    expect((await off.fetch(new Request('http://localhost/api/v1/clients', { headers: auth }))).status).toBe(
      404,
    );
  });
});

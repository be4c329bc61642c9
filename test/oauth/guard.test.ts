/** The guard on every interface: bearer access tokens, API keys, scopes, and the admin routes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, createSwitchboard, defineResource, requireScope } from '../../src/index.js';
import { serve } from '../../src/node/index.js';
import { authErrorResponse, createGuard } from '../../src/oauth/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { EVERY_SCOPE } from '../support/scopes.js';
import { ADMIN_KEY, type Demo, get, startDemo, tokensFor } from './support.js';

describe('guard', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  const admin = (method: string, path: string, body?: unknown, key = ADMIN_KEY) =>
    fetch(`${demo.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('answers 401 with a Bearer challenge when credentials are missing', async () => {
    const response = await get(demo, '/api/v1/clients');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="switchboard"/);
  });

  it('refuses an unknown token with invalid_token', async () => {
    const response = await get(demo, '/api/v1/clients', 'sbat_not_a_real_token');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses an expired access token', async () => {
    const tokens = await tokensFor(demo);
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, tokens.access_token)).status).toBe(200);
    demo.clock.advance(3_600_000);
    const response = await get(demo, `/api/v1/clients/${demo.ada.id}`, tokens.access_token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses a bearer token in the query string', async () => {
    const tokens = await tokensFor(demo);
    const response = await get(demo, `/api/v1/clients/${demo.ada.id}?access_token=${tokens.access_token}`);
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain('invalid_request');
  });

  it("does not let user A's token read user B's records", async () => {
    const tokens = await tokensFor(demo, demo.ada);
    const client = await get(demo, `/api/v1/clients/${demo.grace.id}`, tokens.access_token);
    expect(client.status).toBe(404);
    const orders = await get(demo, `/api/v1/users/${demo.grace.id}/orders`, tokens.access_token);
    expect(orders.status).toBe(404);
    const list = await get(demo, '/api/v1/clients', tokens.access_token);
    const ids = JSON.stringify(await list.json());
    expect(ids).toContain(demo.ada.id);
    expect(ids).not.toContain(demo.grace.id);
  });

  it('answers 403 insufficient_scope on REST when the token lacks the scope', async () => {
    const tokens = await tokensFor(demo, demo.ada, { scope: 'crm.clients.read' });
    const response = await get(demo, `/api/v1/users/${demo.ada.id}/orders`, tokens.access_token);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('creates an API key shown once, stored hashed, usable as a bearer token, with last use recorded', async () => {
    const created = await admin('POST', '/oauth/api-keys', {
      name: 'CRM sync',
      scopes: ['crm.clients.read'],
    });
    expect(created.status).toBe(201);
    const { id, key, prefix } = (await created.json()) as { id: string; key: string; prefix: string };
    expect(key).toMatch(/^sbk_[a-z2-7]{52}$/);
    expect(key.startsWith(prefix)).toBe(true);
    const stored = await demo.switchboard.storage.apiKeys.get(id);
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(stored?.lastUsedAt).toBeNull();

    expect((await get(demo, '/api/v1/clients', key)).status).toBe(200);
    const listed = (await (await admin('GET', '/oauth/api-keys')).json()) as {
      items: Record<string, unknown>[];
    };
    const entry = listed.items.find((k) => k.id === id)!;
    expect(entry.lastUsedAt).toBe(new Date(demo.clock.now()).toISOString());
    expect(entry).not.toHaveProperty('key');
    expect(entry).not.toHaveProperty('hash');
  });

  it('refuses a revoked API key', async () => {
    const created = await admin('POST', '/oauth/api-keys', { name: 'Temp', scopes: ['crm.clients.read'] });
    const { id, key } = (await created.json()) as { id: string; key: string };
    expect((await admin('DELETE', `/oauth/api-keys/${id}`)).status).toBe(204);
    expect((await get(demo, '/api/v1/clients', key)).status).toBe(401);
  });

  it('keeps the admin routes to holders of admin.oauth.write', async () => {
    expect((await fetch(`${demo.base}/oauth/clients`)).status).toBe(401);
    const created = await admin('POST', '/oauth/api-keys', { name: 'Reader', scopes: ['crm.clients.read'] });
    const { key } = (await created.json()) as { key: string };
    const response = await admin('GET', '/oauth/clients', undefined, key);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('scope="admin.oauth.write"');
  });

  it('registers clients through the admin route, showing the secret once and refusing http redirects', async () => {
    const ok = await admin('POST', '/oauth/clients', {
      name: 'Partner bot',
      type: 'confidential',
      redirectUris: ['https://partner.example.com/cb'],
      scopes: ['crm.clients.read'],
    });
    expect(ok.status).toBe(201);
    const body = (await ok.json()) as { id: string; secret: string };
    expect(body.secret).toMatch(/^sbcs_/);
    const fetched = await (await admin('GET', `/oauth/clients/${body.id}`)).json();
    expect(fetched).not.toHaveProperty('secret');
    const bad = await admin('POST', '/oauth/clients', {
      name: 'Bad',
      type: 'public',
      redirectUris: ['http://bot.example.com/cb'],
      scopes: ['crm.clients.read'],
    });
    expect(bad.status).toBe(422);
  });

  it('answers 422, never 500, for admin bodies of the wrong shape', async () => {
    for (const body of [
      { name: 'x', scopes: 'crm.clients.read' },
      { name: 42, scopes: ['crm.clients.read'] },
    ]) {
      expect((await admin('POST', '/oauth/api-keys', body)).status).toBe(422);
    }
    for (const body of [
      { name: 'x', type: 'public', redirectUris: 'https://a.example.com/cb', scopes: ['crm.clients.read'] },
      {
        name: 'x',
        type: 'public',
        redirectUris: ['https://a.example.com/cb'],
        scopes: ['crm.clients.read'],
        grantTypes: 'x',
      },
      { name: 'x', type: 'robot', redirectUris: ['https://a.example.com/cb'], scopes: ['nope'] },
    ]) {
      expect((await admin('POST', '/oauth/clients', body)).status).toBe(422);
    }
    expect((await admin('POST', '/oauth/clients', [])).status).toBeLessThan(500);
  });

  it('revokes every grant of a client when the client is removed', async () => {
    const tokens = await tokensFor(demo);
    expect((await admin('DELETE', `/oauth/clients/${demo.confidential.id}`)).status).toBe(204);
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, tokens.access_token)).status).toBe(401);
  });
});

describe('authErrorResponse, for interfaces that render guard errors themselves', () => {
  it('renders 401 and 403 with RFC 6750 challenges', async () => {
    const demo = await startDemo();
    const authenticate = createGuard(createRuntime({ storage: demo.switchboard.storage }));
    const server = await serve({
      port: 0,
      shutdownSignals: [],
      fetch: async (request) => {
        try {
          requireScope(await authenticate(request), 'crm.orders.write');
          return new Response('ok');
        } catch (error) {
          return authErrorResponse(error);
        }
      },
    });
    try {
      const none = await fetch(server.url);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="switchboard"');
      const bad = await fetch(server.url, { headers: { authorization: 'Bearer sbk_nope' } });
      expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(bad.headers.get('content-type')).toBe('application/problem+json');
      const { access_token } = await tokensFor(demo);
      const weak = await fetch(server.url, { headers: { authorization: `Bearer ${access_token}` } });
      expect(weak.status).toBe(403);
      expect(weak.headers.get('www-authenticate')).toBe(
        'Bearer realm="switchboard", error="insufficient_scope", error_description="This needs the scope crm.orders.write.", scope="crm.orders.write"',
      );
    } finally {
      await server.close();
      await demo.close();
    }
  });
});

describe('the host admin key', () => {
  it('is stored once, hashed, with every scope, across restarts on the same storage', async () => {
    const storage = createMemoryStorage();
    for (let start = 0; start < 2; start++) {
      const switchboard = createSwitchboard({ storage, oauth: { adminApiKey: ADMIN_KEY }, graphql: false });
      await switchboard.oauth!.ready;
    }
    const keys = await storage.apiKeys.list();
    expect(keys).toHaveLength(1);
    expect(new Set(keys[0]?.scopes)).toEqual(EVERY_SCOPE);
    expect(JSON.stringify(keys)).not.toContain(ADMIN_KEY);
  });

  it('gains the scopes of a resource declared after it was stored, at the next start', async () => {
    const storage = createMemoryStorage();
    await createSwitchboard({ storage, oauth: { adminApiKey: ADMIN_KEY }, graphql: false }).oauth!.ready;
    const later = defineResource({
      name: 'return',
      idPrefix: 'ret',
      fields: { reason: z.string() },
      scopes: { read: 'shop.returns.read', write: 'shop.returns.write' },
    });
    const switchboard = createSwitchboard({
      storage,
      resources: [later],
      oauth: { adminApiKey: ADMIN_KEY },
      graphql: false,
    });
    await switchboard.oauth!.ready;
    const response = await switchboard.fetch(
      new Request('http://localhost/api/v1/returns', { headers: { authorization: `Bearer ${ADMIN_KEY}` } }),
    );
    expect(response.status).toBe(200);
    expect((await storage.apiKeys.list())[0]?.scopes).toContain('shop.returns.write');
  });

  it('accepts a host key without the sbk_ prefix (any SWITCHBOARD_API_KEY of 32+ characters)', async () => {
    const key = 'a-host-chosen-key-without-prefix-0123456789';
    const switchboard = createSwitchboard({ oauth: { adminApiKey: key }, graphql: false });
    const response = await switchboard.fetch(
      new Request('http://localhost/oauth/api-keys', { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(response.status).toBe(200);
  });

  it('still guards every interface when the OAuth endpoints are turned off', async () => {
    const storage = createMemoryStorage();
    await createSwitchboard({ storage, oauth: { adminApiKey: ADMIN_KEY }, graphql: false }).oauth!.ready;
    const switchboard = createSwitchboard({ storage, oauth: false, graphql: false });
    const call = (headers: HeadersInit = {}) =>
      switchboard.fetch(new Request('http://localhost/api/v1/clients', { headers }));
    expect((await call()).status).toBe(401);
    expect((await call({ authorization: `Bearer ${ADMIN_KEY}` })).status).toBe(200);
    expect((await switchboard.fetch(new Request('http://localhost/oauth/token'))).status).toBe(404);
  });
});

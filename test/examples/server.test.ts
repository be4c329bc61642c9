import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningExample,
  runExampleServerExpectingFailure,
  startExampleServer,
} from '../support/example-server.js';

describe('example server', () => {
  let server: RunningExample;
  beforeAll(async () => {
    server = await startExampleServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('prints the URL of every interface it serves, and the demo credentials', () => {
    for (const path of [
      '/api/v2',
      '/api/v1',
      '/graphql',
      '/.well-known/oauth-authorization-server',
      '/oauth/authorize',
    ]) {
      expect(server.output()).toContain(`${server.url}${path}`);
    }
    expect(server.output()).toContain(`${server.url}/api/v2/webhook-endpoints`);
    expect(server.output()).toContain(`${server.url}/healthz`);
    expect(server.output()).toContain('in-memory (demo data loaded)');
    expect(server.output()).toMatch(/Admin API key {4}sbk_\w{40,}/);
    expect(server.output()).toContain('demo-bot (confidential)  secret: sbcs_');
    expect(server.output()).toContain('ada@example.com / demo-password-ada');
  });

  it('serves the demo data over REST and GraphQL to the printed admin key, and nothing without it', async () => {
    const key = /Admin API key {4}(sbk_\w+)/.exec(server.output())![1];
    const auth = { authorization: `Bearer ${key}` };
    const list = await fetch(`${server.url}/api/v2/clients?city=London`, { headers: auth });
    expect(list.status).toBe(200);
    expect((await list.json()).items.map((c: { name: string }) => c.name)).toEqual([
      'Ada Lovelace',
      'Alan Turing',
    ]);

    const v1 = await fetch(`${server.url}/api/v1/clients`, { headers: auth });
    expect(v1.headers.get('deprecation')).toBeTruthy();
    expect(v1.headers.get('link')).toContain('rel="successor-version"');

    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ clients(limit: 1) { name orders { status } } }' }),
    });
    expect(await graphql.json()).toEqual({
      data: { clients: [{ name: 'Ada Lovelace', orders: [{ status: 'SHIPPED' }, { status: 'PENDING' }] }] },
    });

    expect((await fetch(`${server.url}/api/v2/clients`)).status).toBe(401);
  });

  it("serves webhook management on every REST version, with that version's deprecation and documents", async () => {
    const key = /Admin API key {4}(sbk_\w+)/.exec(server.output())![1];
    const auth = { authorization: `Bearer ${key}` };
    const v2 = await fetch(`${server.url}/api/v2/webhook-endpoints`, { headers: auth });
    expect(v2.status).toBe(200);
    expect(v2.headers.get('deprecation')).toBeNull();
    const v1 = await fetch(`${server.url}/api/v1/webhook-endpoints`, { headers: auth });
    expect(v1.status).toBe(200);
    expect(v1.headers.get('deprecation')).toBeTruthy();
    expect(v1.headers.get('link')).toContain('/api/v2');
    const operation = async (base: string) =>
      (await (await fetch(`${server.url}${base}/openapi.json`)).json()).paths['/webhook-endpoints'].get;
    expect((await operation('/api/v1')).deprecated).toBe(true);
    expect((await operation('/api/v2')).deprecated).toBeUndefined();
  });

  it('is live and ready', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ready', storage: 'ok' });
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const other = await startExampleServer();
    expect(await other.stop()).toBe(0);
  });

  it('allows local webhook receivers only outside production, and says which mode it is in', async () => {
    const register = async (example: RunningExample) => {
      const key = /Admin API key {4}(sbk_\w+)/.exec(example.output())![1];
      const response = await fetch(`${example.url}/api/v1/webhook-endpoints`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['order.*'] }),
      });
      return response.status;
    };
    // Outside production (vitest runs with NODE_ENV=test): allowed, and the banner says so.
    expect(server.output()).toContain('development: http and loopback/private receivers allowed');
    expect(await register(server)).toBe(201);
    const production = await startExampleServer({ NODE_ENV: 'production' });
    try {
      expect(production.output()).toContain('https receivers on public addresses only');
      expect(await register(production)).toBe(422);
    } finally {
      await production.stop();
    }
  });

  it('refuses to start with bad configuration and says what to fix', async () => {
    const { code, output } = await runExampleServerExpectingFailure({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://nope',
      LOG_LEVEL: 'loud',
    });
    expect(code).toBe(78);
    expect(output).toContain('PORT must be a whole number from 0 to 65535 (got "eighty").');
    expect(output).toContain('DATABASE_URL must look like postgres://');
    expect(output).toContain('LOG_LEVEL must be one of debug, info, warn, error.');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, SwitchboardError } from '../../src/index.js';
import { serve } from '../../src/node/index.js';
import {
  type AnyRoute,
  created,
  createRouteHandler,
  defineRoute,
  ProblemSchema,
  pageOf,
  pageQuery,
  paginated,
} from '../../src/rest/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { type RestServer, startRestServer, testAuthenticate } from './support.js';

/** What another module's admin routes look like: their own store, the shared conventions. */
function endpointRoutes(): AnyRoute[] {
  const endpoints: { id: string; url: string }[] = [];
  const Endpoint = z.object({ id: z.string(), url: z.string() });
  return [
    defineRoute({
      method: 'GET',
      path: '/webhook-endpoints',
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints',
      tags: ['Webhooks'],
      scope: 'admin.webhooks.read',
      query: pageQuery(),
      responses: {
        200: { description: 'A page of endpoints', schema: pageOf(Endpoint), name: 'WebhookEndpointPage' },
      },
      async handle({ query, url }) {
        const start = (query.page - 1) * query.limit;
        return paginated(
          { items: endpoints.slice(start, start + query.limit), total: endpoints.length },
          query,
          url,
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhook-endpoints',
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      tags: ['Webhooks'],
      scope: 'admin.webhooks.write',
      body: { schema: z.strictObject({ url: z.url() }), name: 'WebhookEndpointCreate' },
      responses: {
        201: { description: 'Registered', schema: Endpoint, name: 'WebhookEndpoint' },
        409: { description: 'Already registered', schema: ProblemSchema, name: 'Problem' },
      },
      async handle({ body, basePath }) {
        if (endpoints.some((e) => e.url === body.url))
          throw new SwitchboardError('conflict', 'Already registered.');
        const endpoint = { id: `whe_${endpoints.length + 1}`, url: body.url };
        endpoints.push(endpoint);
        return created(endpoint, `${basePath}/webhook-endpoints/${endpoint.id}`);
      },
    }),
  ];
}

let api: RestServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('routes of other modules', () => {
  it('passed as `routes`, are served with the same conventions and appear in the OpenAPI document', async () => {
    api = await startRestServer({ routes: endpointRoutes() });
    const made = await api.call('/api/v1/webhook-endpoints', {
      method: 'POST',
      json: { url: 'https://hooks.example.com/a' },
    });
    expect(made.status).toBe(201);
    expect(made.headers.get('location')).toBe('/api/v1/webhook-endpoints/whe_1');
    const again = await api.call('/api/v1/webhook-endpoints', {
      method: 'POST',
      json: { url: 'https://hooks.example.com/a' },
    });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toBe('application/problem+json');
    const bad = await api.call('/api/v1/webhook-endpoints', { method: 'POST', json: { url: 'nope' } });
    expect(bad.status).toBe(422);
    const denied = await api.call('/api/v1/webhook-endpoints', { token: 'scopes:crm.clients.read' });
    expect(denied.headers.get('www-authenticate')).toContain('scope="admin.webhooks.read"');
    const list = await api.call('/api/v1/webhook-endpoints');
    expect(await list.json()).toMatchObject({ total: 1, items: [{ id: 'whe_1' }] });
    expect(list.headers.get('link')).toContain('rel="last"');
    const document = await (await api.call('/api/v1/openapi.json', { token: null })).json();
    expect(document.paths['/webhook-endpoints'].post.security).toEqual([
      { bearerAuth: ['admin.webhooks.write'] },
    ]);
    expect(document.components.schemas.WebhookEndpoint).toBeDefined();
    expect(document.paths['/clients']).toBeDefined();
  });

  it('served on a mount of their own, are listed in the document of the version at the same base path', async () => {
    const admin = createRouteHandler(createRuntime({ storage: createMemoryStorage() }), {
      routes: endpointRoutes(),
      authenticate: testAuthenticate,
      basePath: '/api/v1',
    });
    api = await startRestServer({
      mounted: [admin],
      versions: [{ basePath: '/api/v1' }, { basePath: '/api/v2', apiVersion: 2 }],
    });
    const v1 = await (await api.call('/api/v1/openapi.json', { token: null })).json();
    const v2 = await (await api.call('/api/v2/openapi.json', { token: null })).json();
    expect(v1.paths['/webhook-endpoints']).toBeDefined();
    expect(v2.paths['/webhook-endpoints']).toBeUndefined();
  });

  it('may answer with responses whose headers are immutable (Response.redirect, a proxied fetch)', async () => {
    const moved = defineRoute({
      method: 'GET',
      path: '/old-place',
      operationId: 'oldPlace',
      summary: 'Moved',
      scope: null,
      responses: { 200: { description: 'Proxied' }, 308: { description: 'Moved' } },
      handle: async ({ url }) =>
        url.searchParams.has('proxy')
          ? fetch(`${url.origin}/api/v1/openapi.json`)
          : Response.redirect(`${url.origin}/api/v1/clients`, 308),
    });
    api = await startRestServer({
      routes: [moved],
      cors: { origins: '*' },
      versions: [{ basePath: '/api/v1', deprecation: { deprecatedAt: new Date(0) } }],
    });
    const redirected = await api.call('/api/v1/old-place', {
      redirect: 'manual',
      headers: { origin: 'https://a.example' },
    });
    expect(redirected.status).toBe(308);
    expect(redirected.headers.get('location')).toMatch(/\/api\/v1\/clients$/);
    expect(redirected.headers.get('deprecation')).toBe('@0');
    expect(redirected.headers.get('access-control-allow-origin')).toBe('*');
    const proxied = await api.call('/api/v1/old-place?proxy=1');
    expect(proxied.status).toBe(200);
    expect(proxied.headers.get('etag')).toBeTruthy();
    expect((await proxied.json()).openapi).toBe('3.1.0');
  });

  it('createRouteHandler serves a route set on its own mount', async () => {
    const handler = createRouteHandler(createRuntime({ storage: createMemoryStorage() }), {
      routes: endpointRoutes(),
      authenticate: testAuthenticate,
      basePath: '/api/v1',
    });
    const server = await serve({ fetch: handler, port: 0, shutdownSignals: [] });
    try {
      const auth = { authorization: 'Bearer admin' };
      expect((await fetch(`${server.url}/api/v1/webhook-endpoints`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${server.url}/api/v1/clients`, { headers: auth })).status).toBe(404);
      const document = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
      expect(Object.keys(document.paths)).toEqual(['/webhook-endpoints']);
    } finally {
      await server.close();
    }
  });
});

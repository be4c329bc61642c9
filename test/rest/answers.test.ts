/**
 * A route answers with data and header fields; the handler set adds its own (ETag, Cache-Control, Vary,
 * CORS, deprecation, RateLimit) to the same record and builds the Response once. A field the route
 * sets on its answer reaches the client; a route's own Response (even one with immutable headers) gets
 * the handler set's fields too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRateLimiter } from '../../src/http/rate-limit.js';
import { createRuntime } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { createRouteHandler, defineRoute, json } from '../../src/rest/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';

let server: NodeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const Thing = z.object({ id: z.string() });
const routes = [
  defineRoute({
    method: 'GET',
    path: '/things/{id}',
    operationId: 'getThing',
    summary: 'A thing',
    scope: 'public',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The thing', schema: Thing } },
    async handle({ params }) {
      const answer = json({ id: params.id }, { version: 3, headers: { 'x-given': 'in the options' } });
      answer.headers['x-set-after'] = 'on the answer';
      return answer;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/elsewhere',
    operationId: 'goElsewhere',
    summary: 'A redirect',
    scope: 'public',
    responses: { 302: { description: 'Elsewhere' } },
    handle: async () => Response.redirect('https://example.com/there', 302),
  }),
];

async function start(): Promise<string> {
  const rest = createRouteHandler(createRuntime({ storage: createMemoryStorage() }), {
    routes,
    authenticate: async () => {
      throw new Error('public routes only');
    },
    basePath: '/api/v1',
    cors: { origins: ['https://app.example.com'] },
    deprecation: { deprecatedAt: new Date('2026-01-01T00:00:00Z'), successor: '/api/v2' },
    rateLimit: createRateLimiter(createRuntime({ storage: createMemoryStorage() })),
  });
  server = await serve({ fetch: rest, port: 0, shutdownSignals: [] });
  return `${server.url}/api/v1`;
}

describe('route answers', () => {
  it('carry the fields the route set, beside the ones the handler set adds', async () => {
    const base = await start();
    const response = await fetch(`${base}/things/t1`, { headers: { origin: 'https://app.example.com' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 't1' });
    const h = response.headers;
    expect(h.get('x-given')).toBe('in the options');
    expect(h.get('x-set-after')).toBe('on the answer');
    expect(h.get('etag')).toBe('"3"');
    expect(h.get('cache-control')).toBe('private, no-cache');
    expect(h.get('vary')).toBe('Authorization, Origin');
    expect(h.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(h.get('deprecation')).toBe('@1767225600');
    expect(h.get('link')).toBe('</api/v2>; rel="successor-version"');
    expect(h.get('ratelimit-policy')).toBe('"read";q=1000;w=10');
  });

  it('keep them on HEAD and on a 304', async () => {
    const base = await start();
    const head = await fetch(`${base}/things/t1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('x-set-after')).toBe('on the answer');
    const unchanged = await fetch(`${base}/things/t1`, { headers: { 'if-none-match': '"3"' } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe('"3"');
    expect(unchanged.headers.get('ratelimit')).toMatch(/^"read";r=\d+;t=\d+$/);
  });

  it('may be a Response of the route’s own, immutable headers and all: it gets the fields as well', async () => {
    const base = await start();
    const response = await fetch(`${base}/elsewhere`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://example.com/there');
    expect(response.headers.get('ratelimit-policy')).toBe('"read";q=1000;w=10');
    expect(response.headers.get('deprecation')).toBe('@1767225600');
  });
});

/**
 * The two apps the REST benchmarks compare: the switchboard-kit/rest handler set and the same two
 * routes on Hono doing the same work (authenticate, scope check, validated query, domain read, JSON,
 * ETag, Link, Cache-Control), over one seeded in-memory store.
 */
import { Hono } from 'hono';
import { textTag } from '../../src/http/conditional.js';
import { linkHeader } from '../../src/http/pagination.js';
import {
  type Authenticate,
  createDomain,
  createRuntime,
  requireScope,
  SwitchboardError,
  validate,
} from '../../src/index.js';
import { createRestHandler, pageQuery, rangeOf } from '../../src/rest/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { EVERY_SCOPE } from '../support/scopes.js';

const scopes = EVERY_SCOPE;
const authenticate: Authenticate = async (request) => {
  if (request.headers.get('authorization') !== 'Bearer bench')
    throw new SwitchboardError('unauthorized', 'no');
  return { kind: 'service', subject: 'bench', scopes };
};

const storage = createMemoryStorage();
const runtime = createRuntime({ storage });
const domain = createDomain(runtime);
const ids: string[] = [];
for (let i = 0; i < 200; i++) {
  ids.push(
    (await domain.clients.create({ name: `Client ${i}`, email: `c${i}@example.com`, city: 'Paris' })).id,
  );
}
export const id = ids[100]!;

export const rest = createRestHandler(runtime, { domain, authenticate });

const query = pageQuery();
export const hono = new Hono().basePath('/api/v1');
hono.onError((error, c) =>
  c.json(
    { code: error instanceof SwitchboardError ? error.code : 'internal' },
    error instanceof SwitchboardError ? (error.status as 400) : 500,
  ),
);
hono.get('/clients/:id', async (c) => {
  requireScope(await authenticate(c.req.raw), 'crm.clients.read');
  const client = await domain.clients.get(c.req.param('id'));
  return c.json(client, 200, {
    etag: `"${client.version}"`,
    'cache-control': 'private, no-cache',
    vary: 'Authorization',
  });
});
hono.get('/clients', async (c) => {
  requireScope(await authenticate(c.req.raw), 'crm.clients.read');
  const q = validate(query, c.req.query());
  const page = await domain.clients.list({ range: rangeOf(q) });
  const text = JSON.stringify({ items: page.items, page: q.page, limit: q.limit, total: page.total });
  const etag = textTag(text);
  return c.body(text, 200, {
    'content-type': 'application/json; charset=utf-8',
    etag,
    link: linkHeader(new URL(c.req.url), q, page.total),
    'cache-control': 'private, no-cache',
    vary: 'Authorization',
  });
});

export const headers = { authorization: 'Bearer bench' };
export const one = `http://localhost/api/v1/clients/${id}`;
export const list = 'http://localhost/api/v1/clients?page=2&limit=20';

/** Reads the whole answer, failing on anything but 200 so a broken app cannot look fast. */
export async function check(response: Response): Promise<void> {
  if (response.status !== 200) throw new Error(`unexpected ${response.status}`);
  await response.arrayBuffer();
}

/**
 * Runs both apps until the JIT has compiled the shared code (undici, domain, store): otherwise the
 * app measured first pays for warming code the second one then gets for free.
 */
export async function warmUp(rounds = 20_000): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await check(await rest(new Request(i % 4 ? one : list, { headers })));
    await check(await hono.fetch(new Request(i % 4 ? one : list, { headers })));
  }
}

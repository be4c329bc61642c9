/**
 * Request budgets on the REST interface, over real HTTP: a key over its budget gets 429 with
 * `Retry-After` and the RateLimit fields; reads and writes, keys, and address-only callers have budgets
 * of their own; two instances on one PostgreSQL share one budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import { serve } from '../../src/node/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const ADMIN = 'sbk_rate_limit_admin_key_0123456789abcdefghij';
const rules = {
  read: { limit: 3, windowMs: 60_000 },
  write: { limit: 2, windowMs: 60_000 },
  graphql: { limit: 20, windowMs: 60_000 },
  token: { limit: 2, windowMs: 60_000 },
};

async function start(options: Parameters<typeof createSwitchboard>[0] = {}) {
  const switchboard = createSwitchboard({ oauth: { adminApiKey: ADMIN }, rateLimits: { rules }, ...options });
  await switchboard.oauth!.ready;
  const server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
  const call = (path: string, init: RequestInit & { key?: string | null } = {}) => {
    const { key = ADMIN, ...rest } = init;
    return fetch(`${server.url}/api/v1${path}`, {
      ...rest,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
    });
  };
  return { switchboard, server, call };
}

describe('rate limits on REST (memory)', () => {
  let app: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    app = await start();
  });
  afterAll(() => app.server.close());

  it('counts down in the RateLimit fields, then answers 429 with Retry-After', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await app.call('/clients'));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(answers[0]!.headers.get('ratelimit-policy')).toBe('"read";q=3;w=60');
    expect(answers.map((r) => r.headers.get('ratelimit')?.match(/r=(\d+)/)?.[1])).toEqual([
      '2',
      '1',
      '0',
      '0',
    ]);
    const refused = answers[3]!;
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(Number(refused.headers.get('retry-after'))).toBe(20);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'rate_limited' });

    // Writes have a budget of their own; so has another key.
    const write = () =>
      app.call('/clients', {
        method: 'POST',
        body: JSON.stringify({ name: 'X', email: `x${Math.random()}@example.com` }),
      });
    expect([(await write()).status, (await write()).status, (await write()).status]).toEqual([201, 201, 429]);
    const other = await app.switchboard.oauth!.createApiKey({ name: 'other', scopes: ['crm.clients.read'] });
    expect((await app.call('/clients', { key: other.key })).status).toBe(200);
  });

  it('charges a GraphQL operation the fields it selects, and refuses it as a whole over budget', async () => {
    const query = () =>
      fetch(`${app.server.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ clients(limit: 1) { id name } }' }),
      });
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await query());
    // Three fields a query: six fit in 20.
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 429]);
    expect(answers[0]!.headers.get('ratelimit')).toBe('"graphql";r=17;t=9');
    const refused = answers[6]!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-policy')).toBe('"graphql";q=20;w=60');
    expect(await refused.json()).toEqual({
      errors: [expect.objectContaining({ extensions: { code: 'rate_limited' } })],
    });
  });

  it("keeps a budget of token requests per client, answered in OAuth's error format", async () => {
    const machine = await app.switchboard.oauth!.registerClient({
      name: 'Nightly sync',
      type: 'confidential',
      redirectUris: [],
      scopes: ['crm.clients.read'],
      grantTypes: ['client_credentials'],
    });
    const token = (secret = machine.secret!) =>
      fetch(`${app.server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: machine.client.id,
          client_secret: secret,
        }),
      });
    // A wrong secret is charged to the caller's address, not to the client it names.
    const wrong = await token('wrong');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('ratelimit')).toMatch(/^"failed-auth";r=19;t=\d+$/);
    expect((await token()).headers.get('ratelimit')).toMatch(/^"token";r=1;t=\d+$/);
    const granted = await token();
    expect(granted.status).toBe(200);
    expect(granted.headers.get('ratelimit')).toMatch(/^"token";r=0;t=\d+$/);
    const refused = await token();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBe(30);
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
  });

  it('keeps a budget per address for callers without credentials', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await app.call('/clients', { key: null })).status);
    expect(answers).toEqual([401, 401, 401, 429]);
  });
});

describe('rate limits on two instances sharing one PostgreSQL', () => {
  let db: TestDatabase;
  const apps: Awaited<ReturnType<typeof start>>[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    for (let i = 0; i < 2; i++) apps.push(await start({ storage: await db.storage() }));
  });
  afterAll(async () => {
    for (const app of apps) await app.server.close();
    await db?.drop();
  });

  it('gives one budget to a key, whichever instance answers', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await apps[i % 2]!.call('/clients')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await apps[1]!.call('/clients')).status).toBe(429);
  });
});

describe('a larger budget on two instances sharing one PostgreSQL', () => {
  let db: TestDatabase;
  const apps: Awaited<ReturnType<typeof start>>[] = [];
  // 100 s, the longest window still taken in batches: the bucket refills one unit per 333 ms.
  const read = { limit: 300, windowMs: 100_000 };
  beforeAll(async () => {
    db = await createTestDatabase();
    for (let i = 0; i < 2; i++)
      apps.push(await start({ storage: await db.storage(), rateLimits: { rules: { read } } }));
  });
  afterAll(async () => {
    for (const app of apps) await app.server.close();
    await db?.drop();
  });

  it('is taken in batches of 1% yet stays one budget: never more, at most a batch per instance fewer', async () => {
    let allowed = 0;
    const started = Date.now();
    for (let i = 0; i < 320; i++) if ((await apps[i % 2]!.call('/clients')).status === 200) allowed++;
    const refilled = Math.ceil((Date.now() - started) / 333);
    expect(allowed).toBeLessThanOrEqual(300 + refilled);
    expect(allowed).toBeGreaterThanOrEqual(300 - 2 * 3);
  });
});

describe('a shared budget under concurrent requests', () => {
  // A store that costs a round trip, as PostgreSQL's does: its takes are counted and each waits a moment.
  const memory = createMemoryStorage();
  const takes: number[] = [];
  const storage = {
    ...memory,
    rateLimits: {
      remote: true,
      async take(...args: Parameters<typeof memory.rateLimits.take>) {
        takes.push(args[2]);
        await new Promise((resolve) => setTimeout(resolve, 5));
        return memory.rateLimits.take(...args);
      },
    },
  };
  let app: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    app = await start({ storage, rateLimits: { rules: { read: { limit: 1_000, windowMs: 100_000 } } } });
  });
  afterAll(() => app.server.close());

  it('takes one batch at a time for a caller: sixty requests at once are served from a few takes, none refused', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => app.call('/clients').then((r) => r.status)),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Batches of 1% (10 units), one in flight at a time: six takes serve sixty, not one take each.
    const reads = takes.filter((cost) => cost === 10);
    expect(reads.length).toBeGreaterThanOrEqual(6);
    expect(reads.length).toBeLessThanOrEqual(8);
    expect(takes.length).toBeLessThanOrEqual(10);
  });
});

describe('the RateLimit fields on every REST answer', () => {
  let app: Awaited<ReturnType<typeof start>>;
  const budgets = { read: { limit: 50, windowMs: 60_000 }, write: { limit: 50, windowMs: 60_000 } };
  beforeAll(async () => {
    app = await start({ rateLimits: { rules: budgets } });
  });
  afterAll(() => app.server.close());

  /** The class an answer names and what it says is left, e.g. `["write", 48]`. */
  const charged = (response: Response): [string | undefined, number] => {
    const [, cls, left] = response.headers.get('ratelimit')?.match(/^"([a-z-]+)";r=(\d+);t=\d+$/) ?? [];
    expect(response.headers.get('ratelimit-policy'), `${response.status} ${response.url}`).toBe(
      `"${cls}";q=50;w=60`,
    );
    return [cls, Number(left)];
  };
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${app.server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('answers writes with the write budget they were charged to: 201, 200 and 204', async () => {
    const created = await send('POST', '/clients', { name: 'Ada', email: 'ada@example.com' });
    expect(created.status).toBe(201);
    const [cls, left] = charged(created);
    expect(cls).toBe('write');
    const { id } = await created.json();
    const patched = await send('PATCH', `/clients/${id}`, { city: 'Paris' });
    expect(patched.status).toBe(200);
    expect(charged(patched)).toEqual(['write', left - 1]);
    const replaced = await send('PUT', `/clients/${id}`, {
      name: 'Ada',
      email: 'ada@example.com',
      phone: null,
      city: null,
    });
    expect(replaced.status).toBe(200);
    expect(charged(replaced)).toEqual(['write', left - 2]);
    const deleted = await send('DELETE', `/clients/${id}`);
    expect(deleted.status).toBe(204);
    expect(charged(deleted)).toEqual(['write', left - 3]);
  });

  it('answers problems with the budget they were charged to: 422, 404, 409, 412, 401, 405, an unknown path', async () => {
    const invalid = await send('POST', '/clients', { name: '' });
    expect(invalid.status).toBe(422);
    const [, left] = charged(invalid);
    const taken = await send('POST', '/clients', { name: 'Grace', email: 'grace@example.com' });
    const { id } = await taken.json();
    const conflict = await send('POST', '/clients', { name: 'Twin', email: 'grace@example.com' });
    expect(conflict.status).toBe(409);
    expect(charged(conflict)).toEqual(['write', left - 2]);
    const stale = await send('PATCH', `/clients/${id}`, { city: 'Rome' }, { 'if-match': '"99"' });
    expect(stale.status).toBe(412);
    expect(charged(stale)).toEqual(['write', left - 3]);

    const missing = await send('GET', '/clients/cli_missing');
    expect(missing.status).toBe(404);
    const [cls, reads] = charged(missing);
    expect(cls).toBe('read');
    const notModified = await send('GET', `/clients/${id}`);
    const etag = notModified.headers.get('etag')!;
    const revalidated = await send('GET', `/clients/${id}`, undefined, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(charged(revalidated)).toEqual(['read', reads - 2]);

    // Refused credentials, a method a path does not serve and a path nothing is served at are
    // charged to the caller's address.
    const anonymous = await send('GET', '/clients', undefined, { authorization: 'Bearer sbk_wrong' });
    expect(anonymous.status).toBe(401);
    const [, byAddress] = charged(anonymous);
    const nowhere = await send('GET', '/nothing-here');
    expect(nowhere.status).toBe(404);
    expect(charged(nowhere)).toEqual(['read', byAddress - 1]);
    const wrongMethod = await send('POST', `/clients/${id}`, {});
    expect(wrongMethod.status).toBe(405);
    expect(charged(wrongMethod)[0]).toBe('write');
    // The handler set's own pages too.
    const openapi = await send('GET', '/openapi.json');
    expect(openapi.status).toBe(200);
    expect(charged(openapi)).toEqual(['read', byAddress - 2]);
  });
});

/**
 * The authorization server's budgets, over real HTTP: the admin routes take from the read and write
 * budgets like every REST route; a failed client authentication (token, introspection, revocation)
 * is charged to the caller's address, one budget for the three; a client's token budget is spent only
 * once it has authenticated (a public client's, per address); the sign-in page's 429 carries the
 * RateLimit fields. Addresses are told apart by `X-Forwarded-For` behind one trusted proxy.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { manualClock } from '../support/clock.js';
import {
  ADMIN_KEY,
  authorizationUrl,
  type Demo,
  openConsentPage,
  startDemo,
  submitConsent,
} from './support.js';

const A = '198.51.100.7';
const B = '203.0.113.9';
const rules = {
  read: { limit: 5, windowMs: 60_000 },
  write: { limit: 3, windowMs: 60_000 },
  token: { limit: 3, windowMs: 60_000 },
  'failed-auth': { limit: 5, windowMs: 60_000 },
  'sign-in': { limit: 2, windowMs: 60_000 },
};

interface FormCall {
  readonly from?: string;
  /** HTTP Basic credentials. */
  readonly basic?: readonly [string, string];
}

/** POSTs a form to `base + path` from an address, as the proxy in front of the server reports it. */
async function postForm(base: string, path: string, form: Record<string, string>, call: FormCall = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (call.from) headers['x-forwarded-for'] = call.from;
  if (call.basic) headers.authorization = `Basic ${btoa(`${call.basic[0]}:${call.basic[1]}`)}`;
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(form),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

describe('budgets of the authorization server', () => {
  let demo: Demo;
  beforeEach(async () => {
    demo = await startDemo({ rateLimits: { trustedProxies: 1, rules } });
  });
  afterEach(() => demo.close());

  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${demo.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const token = (form: Record<string, string>, call: FormCall) =>
    postForm(demo.base, '/oauth/token', form, call);
  const machineToken = (secret: string, from: string) =>
    token({ grant_type: 'client_credentials' }, { from, basic: [demo.machine.id, secret] });

  it('takes the admin routes from the read and write budgets: RateLimit fields on reads, 429 with them past the budget', async () => {
    const lists = ['/oauth/clients', '/oauth/api-keys', '/oauth/grants'];
    for (const path of [...lists, ...lists.slice(0, 2)]) {
      const answer = await admin('GET', path);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-policy')).toBe('"read";q=5;w=60');
      expect(answer.headers.get('ratelimit')).toMatch(/^"read";r=\d;t=\d+$/);
    }
    for (const path of lists) {
      const refused = await admin('GET', path);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.headers.get('ratelimit')).toMatch(/^"read";r=0;t=\d+$/);
      expect(Number(refused.headers.get('retry-after'))).toBe(12);
      expect(await refused.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    }

    const client = { name: 'Partner', type: 'public', redirectUris: [], scopes: ['crm.clients.read'] };
    const writes = [
      await admin('POST', '/oauth/clients', { ...client, grantTypes: ['refresh_token'] }),
      await admin('POST', '/oauth/api-keys', { name: 'Sync', scopes: ['crm.clients.read'] }),
      await admin('POST', `/oauth/clients/${demo.machine.id}/secret`, { overlapSeconds: 0 }),
      await admin('POST', '/oauth/api-keys', { name: 'Sync', scopes: ['crm.clients.read'] }),
      await admin('POST', '/oauth/clients', client),
    ];
    expect(writes.map((r) => r.status)).toEqual([201, 201, 200, 429, 429]);
    for (const refused of writes.slice(3)) {
      expect(refused.headers.get('ratelimit-policy')).toBe('"write";q=3;w=60');
      expect(refused.headers.get('retry-after')).toBe('20');
    }
  });

  it('charges wrong secrets at introspection and revocation to the address: one budget with the token endpoint', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const path = i % 2 ? '/oauth/revoke' : '/oauth/introspect';
      const answer = await postForm(
        demo.base,
        path,
        { token: 'sbat_whatever' },
        { from: A, basic: [demo.confidential.id, `wrong-secret-${i}`] },
      );
      statuses.push(answer.status);
      expect(answer.headers.get('ratelimit-policy')).toBe('"failed-auth";q=5;w=60');
      if (answer.status === 429) {
        expect(answer.body.error).toBe('temporarily_unavailable');
        expect(answer.headers.get('retry-after')).toBe('12');
        expect(answer.headers.get('ratelimit')).toMatch(/^"failed-auth";r=0;t=\d+$/);
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // The address waits, whatever it sends now and wherever: a right secret is not even checked.
    expect((await machineToken(demo.machine.secret, A)).status).toBe(429);
    const introspected = await postForm(
      demo.base,
      '/oauth/introspect',
      { token: 'sbat_whatever' },
      { from: A, basic: [demo.confidential.id, demo.confidential.secret] },
    );
    expect(introspected.status).toBe(429);
    // Another address is not refused.
    const elsewhere = await postForm(
      demo.base,
      '/oauth/introspect',
      { token: 'sbat_whatever' },
      { from: B, basic: [demo.confidential.id, demo.confidential.secret] },
    );
    expect(elsewhere).toMatchObject({ status: 200, body: { active: false } });
  });

  it("never spends a client's token budget for a request that fails to authenticate as it", async () => {
    const wrong = [];
    for (let i = 0; i < 8; i++) wrong.push((await machineToken(`wrong-${i}`, A)).status);
    expect(wrong).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // The client, from its own address, has its whole budget: 3 a minute, which only it spends.
    const own = [];
    for (let i = 0; i < 4; i++) own.push(await machineToken(demo.machine.secret, B));
    expect(own.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(own[0]!.headers.get('ratelimit')).toMatch(/^"token";r=2;t=\d+$/);
    expect(own[3]!.body.error).toBe('temporarily_unavailable');
  });

  it("keeps a public client's token budget per address, so no address spends another's", async () => {
    const bogus = (from: string) =>
      token(
        { grant_type: 'authorization_code', client_id: demo.publicClient.id, code: 'sbac_bogus' },
        { from },
      );
    const fromA = [];
    for (let i = 0; i < 5; i++) fromA.push((await bogus(A)).status);
    expect(fromA).toEqual([400, 400, 400, 429, 429]);
    const fromB = await bogus(B);
    expect(fromB.status).toBe(400);
    expect(fromB.body.error).toBe('invalid_grant');
  });

  it('refuses an address that names a new client on each request once it has failed enough', async () => {
    const statuses = [];
    for (let i = 0; i < 7; i++) {
      const answer = await token(
        { grant_type: 'client_credentials' },
        { from: A, basic: [`oac_random_${crypto.randomUUID()}`, 'anything'] },
      );
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const withoutClient = await token({ grant_type: 'client_credentials' }, { from: A });
    expect(withoutClient.status).toBe(429);
  });

  it("answers the sign-in page's 429 with Retry-After and the address budget's RateLimit fields", async () => {
    const attempt = async () => {
      const page = await openConsentPage(authorizationUrl(demo).url);
      return submitConsent(page, { username: demo.ada.email, password: 'guess' }, demo.base);
    };
    expect((await attempt()).status).toBe(401);
    expect((await attempt()).status).toBe(401);
    const refused = await attempt();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.headers.get('ratelimit-policy')).toBe('"sign-in";q=2;w=60');
    expect(refused.headers.get('ratelimit')).toMatch(/^"sign-in";r=0;t=\d+$/);
  });
});

describe("the sign-in page's lockout", () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  it("answers its 429 with Retry-After and the lockout's RateLimit fields", async () => {
    const attempt = async (password: string) => {
      const page = await openConsentPage(authorizationUrl(demo).url);
      return submitConsent(page, { username: demo.grace.email, password }, demo.base);
    };
    for (let i = 0; i < 5; i++) expect((await attempt('guess')).status).toBe(401);
    const locked = await attempt(demo.grace.password);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('180');
    expect(locked.headers.get('ratelimit-policy')).toBe('"sign-in-lockout";q=5;w=900');
    expect(locked.headers.get('ratelimit')).toBe('"sign-in-lockout";r=0;t=900');
  });
});

describe('the failed-authentication budget on two instances sharing one PostgreSQL', () => {
  const ADMIN = 'sbk_budget_admin_key_0123456789abcdefghijklmn';
  const clock = manualClock(Date.now());
  // Large enough for the shared store to be taken in batches (1% of the budget): an hour's 300.
  const failedAuth = { limit: 300, windowMs: 3_600_000 };
  let db: TestDatabase;
  const instances: { switchboard: Switchboard; server: NodeServer }[] = [];
  let machine: { id: string; secret: string };
  beforeAll(async () => {
    db = await createTestDatabase();
    for (let i = 0; i < 2; i++) {
      const switchboard = createSwitchboard({
        storage: await db.storage(),
        clock,
        oauth: { adminApiKey: ADMIN },
        graphql: false,
        rateLimits: {
          trustedProxies: 1,
          rules: { 'failed-auth': failedAuth, token: { limit: 10_000, windowMs: 60_000 } },
        },
      });
      const server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
      instances.push({ switchboard, server });
    }
    const registered = await instances[0]!.switchboard.oauth!.registerClient({
      name: 'Nightly sync',
      type: 'confidential',
      redirectUris: [],
      scopes: ['crm.clients.read'],
      grantTypes: ['client_credentials'],
    });
    machine = { id: registered.client.id, secret: registered.secret! };
  });
  afterAll(async () => {
    for (const { server } of instances) await server.close();
    await db?.drop();
  });

  const tokenOn = (i: number, secret: string) =>
    postForm(
      instances[i % 2]!.server.url,
      '/oauth/token',
      { grant_type: 'client_credentials' },
      { from: A, basic: [machine.id, secret] },
    );

  it('gives the unit back when the client authenticates, on whichever instance, however long apart', async () => {
    for (let i = 0; i < 40; i++) {
      expect((await tokenOn(i, machine.secret)).status).toBe(200);
      clock.advance(1_100);
    }
    const wrong = await tokenOn(0, 'wrong');
    expect(wrong.status).toBe(401);
    // One failure spent; at most a batch (3) held by each instance besides.
    const remaining = Number(/r=(\d+)/.exec(wrong.headers.get('ratelimit') ?? '')?.[1]);
    expect(remaining).toBeGreaterThanOrEqual(299 - 2 * 3);
  });

  it("keeps one budget of an address's failures across the instances", async () => {
    let failed = 0;
    for (let i = 0; i < 320; i++) if ((await tokenOn(i, `wrong-${i}`)).status === 401) failed++;
    expect(failed).toBeLessThanOrEqual(299);
    expect(failed).toBeGreaterThanOrEqual(299 - 2 * 3);
    expect((await tokenOn(0, machine.secret)).status).toBe(429);
    expect((await tokenOn(1, machine.secret)).status).toBe(429);
  });
});

/**
 * Sign-in and consent are pluggable: the host's own session, and the host's own consent page. Whoever
 * checks passwords, the authorization server's lockout guards them, on the storage every instance shares.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import type { Clock } from '../../src/index.js';
import { createRuntime } from '../../src/index.js';
import {
  type AuthorizationServer,
  type ConsentView,
  createAuthorizationServer,
  type SignIn,
} from '../../src/oauth/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import type { PostgresStorage } from '../../src/storage/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { manualClock } from '../support/clock.js';
import { until } from '../support/until.js';
import {
  authorizationUrl,
  type Demo,
  openConsentPage,
  REDIRECT,
  startDemo,
  submitConsent,
  tokenRequest,
} from './support.js';

describe('pluggable sign-in', () => {
  let demo: Demo;
  const views: ConsentView[] = [];
  beforeAll(async () => {
    let adaId = '';
    demo = await startDemo({
      oauth: {
        // The host already knows who is signed in from its own session cookie.
        signIn: {
          currentUser: async (request) =>
            /\bsession=ada\b/.test(request.headers.get('cookie') ?? '') ? adaId : null,
        },
        renderConsent: (view) => {
          views.push(view);
          const hidden = Object.entries({ ...view.hidden, csrf: view.csrfToken })
            .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
            .join('');
          return `<form method="post" action="${view.action}">${hidden}<p>Custom page for ${view.clientName}</p></form>`;
        },
      },
    });
    adaId = demo.ada.id;
  });
  afterAll(() => demo.close());

  it("uses the host's session instead of asking for a password, and the host's page", async () => {
    const { url, verifier } = authorizationUrl(demo);
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: 'session=ada' } });
    const html = await response.text();
    expect(html).toContain('Custom page for Support bot');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(views.at(-1)?.askPassword).toBe(false);
    expect(views.at(-1)?.scopes.map((s) => s.name)).toEqual(['crm.clients.read', 'crm.orders.read']);

    const csrfCookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
    const hidden: Record<string, string> = {};
    for (const m of html.matchAll(/name="([^"]+)" value="([^"]*)"/g)) hidden[m[1]!] = m[2]!;
    const page = await openConsentPage(url);
    const answer = await submitConsent(
      { ...page, hidden, cookie: `${csrfCookie}; session=ada`, scopes: ['crm.clients.read'] },
      {},
      demo.base,
    );
    expect(answer.status).toBe(303);
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    const tokens = await tokenRequest(demo, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    const introspection = await fetch(`${demo.base}/oauth/introspect`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${demo.confidential.id}:${demo.confidential.secret}`)}`,
      },
      body: new URLSearchParams({ token: tokens.body.access_token as string }),
    });
    expect(await introspection.json()).toMatchObject({
      active: true,
      sub: demo.ada.id,
      scope: 'crm.clients.read',
    });
  });

  it('refuses to continue without a session when the host offers no password sign-in', async () => {
    const response = await fetch(authorizationUrl(demo).url, { redirect: 'manual' });
    expect(response.status).toBe(503);
    expect(response.headers.get('location')).toBeNull();
  });
});

describe('the sign-in lockout, on the storage every instance shares', () => {
  const RIGHT = 'correct horse battery staple';

  /** A host's own password check that counts its calls; `gate` holds every check until it resolves. */
  function countingSignIn(gate?: Promise<void>): SignIn & { calls: number } {
    return {
      calls: 0,
      async verifyPassword(_username, password) {
        this.calls++;
        await gate;
        return password === RIGHT ? 'cli_ada' : null;
      },
    };
  }

  const servers = (storage: Storage, signIn: SignIn, clock: Clock, count = 2) =>
    Array.from({ length: count }, () =>
      createAuthorizationServer(createRuntime({ storage, clock }), { signIn }),
    );

  const attempt = (server: AuthorizationServer, username: string, password: string) =>
    server.signIn.verifyPassword!(username, password).catch((error: unknown) => error);

  it('locks a username out on every server of one storage after maxFailures wrong passwords in all', async () => {
    const clock = manualClock();
    const signIn = countingSignIn();
    const [a, b] = servers(createMemoryStorage(), signIn, clock);
    for (let i = 0; i < 5; i++) expect(await attempt(i % 2 ? a! : b!, 'ada@example.com', 'guess')).toBeNull();
    // The same username however it is typed; the right password is not even checked.
    const refused = await attempt(a!, '  ADA@example.com ', RIGHT);
    expect(refused).toMatchObject({
      code: 'rate_limited',
      retryAfter: 180,
      message: 'Too many wrong passwords for this account. Try again in 3 minutes.',
    });
    expect(signIn.calls).toBe(5);
    // Another username is not touched.
    expect(await attempt(b!, 'grace@example.com', RIGHT)).toBe('cli_ada');
    clock.advance(3 * 60_000);
    expect(await attempt(b!, 'ada@example.com', RIGHT)).toBe('cli_ada');
  });

  it('never checks more than maxFailures passwords of concurrent wrong attempts', async () => {
    let open = () => {};
    const signIn = countingSignIn(new Promise<void>((resolve) => (open = resolve)));
    const [a, b] = servers(createMemoryStorage(), signIn, manualClock());
    const answers = Array.from({ length: 12 }, (_, i) =>
      attempt(i % 2 ? a! : b!, 'ada@example.com', 'guess'),
    );
    await until(() => signIn.calls === 5);
    open();
    const results = await Promise.all(answers);
    expect(signIn.calls).toBe(5);
    expect(results.filter((r) => r === null)).toHaveLength(5);
    expect(results.filter((r) => (r as { code?: string })?.code === 'rate_limited')).toHaveLength(7);
  });

  it('gives a successful sign-in its unit back; wrong passwords still count', async () => {
    const signIn = countingSignIn();
    const storage = createMemoryStorage();
    const server = createAuthorizationServer(createRuntime({ storage, clock: manualClock() }), {
      signIn,
      signInLockout: { maxFailures: 2, windowMs: 60_000 },
    });
    for (let i = 0; i < 10; i++) expect(await attempt(server, 'ada@example.com', RIGHT)).toBe('cli_ada');
    expect(await attempt(server, 'ada@example.com', 'guess')).toBeNull();
    expect(await attempt(server, 'ada@example.com', 'guess')).toBeNull();
    expect(await attempt(server, 'ada@example.com', RIGHT)).toMatchObject({ code: 'rate_limited' });
  });

  it('is on without request rate limits, and off with signInLockout: false', async () => {
    const signIn = countingSignIn();
    // createAuthorizationServer is given no rateLimit here: the lockout needs none.
    const [locked] = servers(createMemoryStorage(), signIn, manualClock(), 1);
    for (let i = 0; i < 6; i++) await attempt(locked!, 'ada@example.com', 'guess');
    expect(signIn.calls).toBe(5);
    const open = createAuthorizationServer(createRuntime({ storage: createMemoryStorage() }), {
      signIn,
      signInLockout: false,
    });
    for (let i = 0; i < 20; i++) expect(await attempt(open, 'ada@example.com', 'guess')).toBeNull();
    expect(signIn.calls).toBe(25);
    expect(() =>
      createAuthorizationServer(createRuntime({ storage: createMemoryStorage() }), {
        signIn,
        signInLockout: { maxFailures: 0 },
      }),
    ).toThrow(/maxFailures of 1 or more/);
  });
});

describe('password sign-in over HTTP: the console shares the lockout, and addresses have a budget', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo({ rateLimits: { rules: { 'sign-in': { limit: 8, windowMs: 60_000 } } } });
  });
  afterAll(() => demo.close());

  const onPage = async (password: string, username = demo.ada.email) => {
    const page = await openConsentPage(authorizationUrl(demo).url);
    return submitConsent(page, { username, password }, demo.base);
  };
  const onConsole = (password: string, email = demo.ada.email) =>
    fetch(`${demo.base}/console/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ email, password }),
    });

  it('locks the console out after wrong passwords on the sign-in page, and the page after the console', async () => {
    for (let i = 0; i < 3; i++) expect((await onPage('guess')).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await onConsole('guess')).status).toBe(401);
    const refused = await onConsole(demo.ada.password);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('180');
    expect(await refused.text()).toContain('Try again in 3 minutes.');
    expect((await onPage(demo.ada.password)).status).toBe(429);
  });

  it("refuses an address's sign-in posts beyond its budget, in the console and on the page", async () => {
    // Seven posts were spent by the test above.
    expect((await onConsole(demo.grace.password, demo.grace.email)).status).toBe(303);
    const refused = await onConsole(demo.grace.password, demo.grace.email);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('Too many sign-in attempts: 8 per 60 s are allowed.');
    const onThePage = await onPage(demo.grace.password, demo.grace.email);
    expect(onThePage.status).toBe(429);
    expect(await onThePage.text()).toContain('Too many sign-in attempts');
    demo.clock.advance(60_000);
    expect((await onConsole(demo.grace.password, demo.grace.email)).status).toBe(303);
  });
});

describe('the sign-in lockout on two instances sharing one PostgreSQL', () => {
  let db: TestDatabase;
  const storages: PostgresStorage[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    storages.push(await db.storage(), await db.storage());
  });
  afterAll(() => db?.drop());

  it('counts wrong passwords on either instance against one lockout', async () => {
    let calls = 0;
    const signIn: SignIn = {
      async verifyPassword(_username, password) {
        calls++;
        return password === 'right' ? 'cli_ada' : null;
      },
    };
    const [a, b] = storages.map((storage) =>
      createAuthorizationServer(createRuntime({ storage }), { signIn }),
    );
    const answers = [];
    for (let i = 0; i < 6; i++)
      answers.push(
        await (i % 2 ? a! : b!).signIn.verifyPassword!('ada@example.com', 'guess').catch((e: unknown) => e),
      );
    expect(answers.slice(0, 5)).toEqual([null, null, null, null, null]);
    expect(answers[5]).toMatchObject({ code: 'rate_limited' });
    await expect(b!.signIn.verifyPassword!('ada@example.com', 'right')).rejects.toMatchObject({
      code: 'rate_limited',
    });
    expect(calls).toBe(5);
  });
});

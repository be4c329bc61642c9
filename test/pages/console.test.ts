/**
 * The operator console in a real headless Chromium: sign in with the admin key, watch a failing
 * receiver's delivery fail with its attempts, fix the receiver and replay every failed delivery, create
 * and revoke an API key, revoke a user's grant; every page loads nothing from outside, works at 400 px
 * and passes axe-core. With UPDATE_SCREENSHOTS=1 the pages are photographed into docs/console/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { ADMIN_KEY, type Demo, get, startDemo, tokensFor } from '../oauth/support.js';
import { seriousViolations } from '../support/axe.js';
import { until } from '../support/until.js';

const executablePath =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const SHOTS = process.env.UPDATE_SCREENSHOTS ? 'docs/console' : undefined;

describe('the operator console in a browser', () => {
  let demo: Demo;
  let browser: Browser;
  let receiver: NodeServer;
  let grace = '';
  const state = { failing: true, received: [] as string[] };

  beforeAll(async () => {
    if (!executablePath) throw new Error('Install Chromium (apt-get install chromium) or set CHROMIUM_PATH.');
    receiver = await serve({
      port: 0,
      shutdownSignals: [],
      fetch: async (request) => {
        const body = await request.text();
        if (state.failing) return new Response('receiver is down for maintenance', { status: 503 });
        state.received.push(body);
        return new Response('ok');
      },
    });
    demo = await startDemo({
      clock: systemClock,
      // Grace operates the console with her account; Ada is a user like any other.
      console: { isAdmin: (userId) => userId === grace },
      relayIntervalMs: 50,
      webhooks: {
        attempts: 3,
        delaysMs: [100, 100],
        pollIntervalMs: 50,
        outbound: { allowHttp: true, allowPrivateAddresses: true },
      },
    });
    grace = demo.grace.id;
    demo.switchboard.start();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.switchboard.close();
    await demo?.close();
    await receiver?.close();
  });

  /** A page that records every request leaving the server. */
  async function open(width = 1100): Promise<{ page: Page; outside: string[] }> {
    // axe-core is injected past the pages' CSP, for the test only (the CSP header is checked apart).
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(demo.base)) outside.push(request.url());
    });
    return { page, outside };
  }

  /** Checks the page (accessible, fits its width) and photographs it for the docs when asked. */
  async function check(page: Page, name: string): Promise<void> {
    expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} fits its width`).toBeLessThanOrEqual(0);
    // The catalogue is long: its first screen is enough for the docs.
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: name !== 'event-types' });
  }

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${demo.base}/console`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // By keyboard: the key field, then Enter.
    await page.getByLabel('Admin API key').fill(ADMIN_KEY);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
  }

  it('refuses a wrong key and sets a strict, HttpOnly session cookie for the right one', async () => {
    const { page, outside } = await open();
    const response = await page.goto(`${demo.base}/console/webhooks`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await check(page, 'sign-in');
    await page.getByLabel('Admin API key').fill('sbk_not_a_real_key_at_all_0123456789');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    expect(await page.getByRole('alert').textContent()).toContain('not an admin API key');
    await signIn(page);
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({
      name: 'sb_console',
      httpOnly: true,
      sameSite: 'Strict',
      path: '/console',
    });
    expect(cookie!.value).not.toContain(ADMIN_KEY);
    // A change without the session's CSRF token is refused.
    const forged = await page.evaluate(async (base) => {
      const response = await fetch(`${base}/console/webhooks`, {
        method: 'POST',
        body: new URLSearchParams({ url: 'https://example.com/x', eventTypes: '*' }),
      });
      return response.status;
    }, demo.base);
    expect(forged).toBe(403);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${demo.base}/console/webhooks`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(outside).toEqual([]);
  });

  it('a failing receiver: the failed delivery shows with its attempts; fixed, replay all failed succeeds', async () => {
    const { page, outside } = await open();
    await signIn(page);
    await check(page, 'webhooks');
    await page.getByLabel('Receiver URL').fill(`${receiver.url}/hooks`);
    await page.getByLabel('Description').fill('CRM sync');
    await page.getByRole('checkbox', { name: '*', exact: true }).uncheck();
    await page.getByRole('checkbox', { name: 'client.created' }).check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('heading', { name: /^Endpoint / }).waitFor();
    expect(await page.locator('code.secret').textContent()).toMatch(/^whsec_/);

    const created = await fetch(`${demo.base}/api/v1/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Katherine Johnson', email: 'katherine@example.com' }),
    });
    expect(created.status).toBe(201);
    const clientId = (await created.json()).id as string;
    await until(
      async () => {
        await page.reload();
        return (await page.locator('td .status-dead').count()) === 1;
      },
      'the delivery to fail for good',
      20_000,
    );
    await check(page, 'endpoint');
    await page.getByRole('link', { name: 'client.created' }).first().click();
    await page.getByRole('heading', { name: /^Delivery / }).waitFor();
    const attempts = page.getByRole('table', { name: 'Attempts' });
    expect(await attempts.locator('tbody tr').count()).toBe(3);
    expect(await attempts.textContent()).toContain('503');
    expect(await attempts.textContent()).toContain('receiver is down');
    expect(await page.getByLabel('Body').textContent()).toContain(clientId);
    expect(await page.getByLabel('Headers of the last attempt').textContent()).toMatch(
      /x-signature: sha256=/i,
    );
    await check(page, 'delivery');

    state.failing = false;
    await page.getByRole('link', { name: "Back to the endpoint's log" }).click();
    await page
      .getByLabel('Replay every failed delivery since (UTC)')
      .fill(new Date(Date.now() - 3_600_000).toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Replay failed' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('1 failed delivery is sent again');
    await until(
      async () => {
        await page.reload();
        return (await page.locator('td .status-succeeded').count()) === 1;
      },
      'the replayed delivery to succeed',
      20_000,
    );
    expect(state.received.some((body) => body.includes(clientId))).toBe(true);
    expect(outside).toEqual([]);
  });

  it('an API key made in the console works, and is refused once revoked', async () => {
    const { page } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Reporting');
    await page.getByRole('checkbox', { name: 'crm.clients.read' }).check();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.locator('code.secret').textContent())!;
    expect(key).toMatch(/^sbk_/);
    expect((await get(demo, '/api/v1/clients', key)).status).toBe(200);
    await page.goto(`${demo.base}/console/api-keys`);
    await check(page, 'api-keys');
    await page.getByRole('link', { name: 'Revoke Reporting' }).click();
    await page.getByRole('button', { name: 'Revoke Reporting' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('revoked');
    expect((await get(demo, '/api/v1/clients', key)).status).toBe(401);
  });

  it("revoking a user's grant ends its token", async () => {
    const tokens = await tokensFor(demo);
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, tokens.access_token)).status).toBe(200);
    const { page } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'Grants' }).click();
    await page.getByLabel('User (name or e-mail)').fill(demo.ada.email);
    await page.getByRole('button', { name: 'Show' }).click();
    await check(page, 'grants');
    await page.getByRole('link', { name: 'Revoke Support bot' }).first().click();
    await page.getByRole('button', { name: 'Revoke Support bot’s access' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('revoked');
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, tokens.access_token)).status).toBe(401);
  });

  it('OAuth clients, event types and live activity, at 400 px wide', async () => {
    const { page, outside } = await open(400);
    await signIn(page);
    await page.getByRole('link', { name: 'OAuth clients' }).click();
    await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
    await check(page, 'oauth-clients');
    await page.getByRole('link', { name: 'Event types' }).click();
    expect(await page.getByLabel('Example data of order.paid').textContent()).toContain('status');
    await check(page, 'event-types');
    await page.getByRole('link', { name: 'Live activity' }).click();
    await page.getByRole('heading', { name: 'Live activity' }).waitFor();
    // Give the stream a moment to connect, then make something happen.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await demo.switchboard.domain.clients.create({ name: 'Dorothy Vaughan', email: 'dorothy@example.com' });
    await page.locator('#events li', { hasText: 'client.created' }).first().waitFor();
    await check(page, 'activity');
    expect(outside).toEqual([]);
  });

  it("a user signs in with their account, sees the apps they authorized and takes one's access back", async () => {
    const tokens = await tokensFor(demo);
    const { page, outside } = await open(400);
    await page.goto(`${demo.base}/console`);
    await page.getByLabel('E-mail').fill(demo.ada.email);
    await page.getByLabel('Password').fill('not her password');
    await page.getByRole('button', { name: 'Sign in with your account' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('do not match');
    await page.getByLabel('E-mail').fill(demo.ada.email);
    await page.getByLabel('Password').fill(demo.ada.password);
    await page.getByRole('button', { name: 'Sign in with your account' }).click();
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    // A user sees their own page only: no operator section, and operator pages are refused.
    expect(await page.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    await check(page, 'connected-apps');
    const forbidden = await page.goto(`${demo.base}/console/webhooks`);
    expect(forbidden?.status()).toBe(403);
    await page.goto(`${demo.base}/console/me`);
    await page.getByRole('link', { name: 'Remove access of Support bot' }).first().click();
    await page.getByRole('button', { name: 'Remove access of Support bot' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('Access removed');
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, tokens.access_token)).status).toBe(401);
    expect(outside).toEqual([]);
  });

  it('a user the host names as an admin operates the console with their account', async () => {
    const { page } = await open();
    await page.goto(`${demo.base}/console`);
    await page.getByLabel('E-mail').fill(demo.grace.email);
    await page.getByLabel('Password').fill(demo.grace.password);
    await page.getByRole('button', { name: 'Sign in with your account' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    expect(await page.getByRole('link', { name: 'Connected apps' }).count()).toBe(1);
  });
});

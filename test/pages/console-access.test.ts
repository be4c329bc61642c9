/**
 * The console's access pages in a real headless Chromium, at 1280 and 390 px with axe-core: API keys
 * told apart by their prefix, a key of no scope only when the operator insists, a refused form shown
 * again with its errors beside the fields and the values kept, a secret shown once with a Copy button
 * and not again on reload, revocations that ask first (and the session's own key refused), users named
 * by name and e-mail, one grant per user and app, and a person told what they may not do in words.
 * Screenshots go to test/.screenshots/ (gitignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/index.js';
import { ADMIN_KEY, type Demo, get, startDemo, tokensFor } from '../oauth/support.js';
import { seriousViolations } from '../support/axe.js';

const executablePath =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const SHOTS = 'test/.screenshots';

describe('the console’s access pages in a browser', () => {
  let demo: Demo;
  let browser: Browser;

  beforeAll(async () => {
    if (!executablePath) throw new Error('Install Chromium (apt-get install chromium) or set CHROMIUM_PATH.');
    demo = await startDemo({ clock: systemClock });
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  async function context(width: number, options: { javaScript?: boolean } = {}): Promise<BrowserContext> {
    // axe-core is injected past the pages' CSP, for the test only.
    const made = await browser.newContext({
      viewport: { width, height: 900 },
      bypassCSP: true,
      javaScriptEnabled: options.javaScript ?? true,
    });
    // Within the test's own time, so a missing element fails by its name.
    made.setDefaultTimeout(8_000);
    return made;
  }

  async function operator(width: number, options: { javaScript?: boolean } = {}): Promise<Page> {
    const page = await (await context(width, options)).newPage();
    await page.goto(`${demo.base}/console/sign-in`);
    await page.getByLabel('Admin API key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    return page;
  }

  async function user(width: number, who: Demo['ada']): Promise<Page> {
    const page = await (await context(width)).newPage();
    await page.goto(`${demo.base}/console/sign-in`);
    await page.getByLabel('E-mail').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Sign in with your account' }).click();
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    return page;
  }

  /**
   * Accessible, no horizontal scroll, and photographed for a person to look at; axe-core runs as a
   * script, so not on a page whose script is turned off.
   */
  async function check(page: Page, name: string, options: { axe?: boolean } = {}): Promise<void> {
    if (options.axe !== false) expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} fits its width`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/console-${name}.png`, fullPage: true });
  }

  const keyNamed = async (name: string) =>
    (await demo.switchboard.oauth!.admin.listApiKeys()).filter((k) => k.name === name);

  for (const width of [1280, 390]) {
    it(`shows API keys with whole names and their prefix, at ${width} px`, async () => {
      await demo.switchboard.oauth!.admin.createApiKey({
        name: `Zendesk sync ${width}`,
        scopes: ['crm.clients.read'],
      });
      const page = await operator(width);
      await page.getByRole('link', { name: 'API keys' }).click();
      const row = page.getByRole('row').filter({ hasText: `Zendesk sync ${width}` });
      const prefix = (await demo.switchboard.oauth!.admin.listApiKeys()).find(
        (k) => k.name === `Zendesk sync ${width}`,
      )!.prefix;
      expect(await row.textContent()).toContain(`${prefix}…`);
      // The name is not broken into letters to make room: "Zendesk" sits on one line.
      const name = row.locator('.name');
      const lines = await name.evaluate((el) => {
        const range = document.createRange();
        range.setStart(el.firstChild!, 0);
        range.setEnd(el.firstChild!, 'Zendesk'.length);
        return range.getClientRects().length;
      });
      expect(lines).toBe(1);
      // The key this session signed in with cannot be revoked from here, and says so.
      expect(await page.getByRole('row').filter({ hasText: 'admin (host)' }).textContent()).toContain(
        'the key of this session',
      );
      await check(page, `api-keys-${width}`);
      await page.context().close();
    });
  }

  it('keeps the values and shows the error beside the field when a key has no scope, and makes it once asked to', async () => {
    const page = await operator(1280);
    await page.goto(`${demo.base}/console/api-keys`);
    await page.getByLabel('Name', { exact: true }).fill('Nothing yet');
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Create API key' }).click();
    expect((await answer).status()).toBe(422);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('Nothing was saved');
    const scopes = page.getByRole('group', { name: 'Scopes' });
    expect(await scopes.getAttribute('aria-describedby')).toBe('scopes-error');
    expect(await page.locator('#scopes-error').textContent()).toContain('Tick at least one scope');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Nothing yet');
    expect(await keyNamed('Nothing yet')).toEqual([]);
    await check(page, 'api-keys-refused');

    await page.getByLabel('Create it without scopes').check();
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.locator('code.secret').waitFor();
    expect(await keyNamed('Nothing yet')).toHaveLength(1);
    await page.context().close();
  });

  it('shows a refused field in the form’s words, the value kept, 422, on the OAuth client form', async () => {
    const page = await operator(390);
    await page.goto(`${demo.base}/console/oauth-clients`);
    await page.getByLabel('Name', { exact: true }).fill('Kiosk');
    await page.getByLabel('public (a browser or mobile app').check();
    await page.getByLabel('Redirect URIs, one per line').fill('kiosk.example.com/callback');
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Register' }).click();
    expect((await answer).status()).toBe(422);
    const error = await page.locator('#redirectUris-error').textContent();
    expect(error).toContain('Redirect URIs (line 1)');
    expect(error).not.toContain('redirectUris');
    expect(await page.getByLabel('Redirect URIs, one per line').inputValue()).toBe(
      'kiosk.example.com/callback',
    );
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Kiosk');
    expect(await page.getByLabel('public (a browser or mobile app').isChecked()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Not done' }).count()).toBe(0);
    await check(page, 'oauth-clients-refused-390');
    await page.context().close();
  });

  it('shows a new key once, with a Copy button, redirects after the post, and a reload neither posts nor shows it again', async () => {
    const page = await operator(1280);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: demo.base });
    await page.goto(`${demo.base}/console/api-keys`);
    await page.getByLabel('Name', { exact: true }).fill('Reporting');
    await page.getByRole('checkbox', { name: 'crm.clients.read' }).check();
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Create API key' }).click();
    expect((await answer).status()).toBe(303);
    const key = (await page.locator('code.secret').textContent())!;
    expect(key).toMatch(/^sbk_/);
    expect((await get(demo, '/api/v1/clients', key)).status).toBe(200);
    await check(page, 'api-key-created');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe('GET');
    expect(await page.locator('code.secret').count()).toBe(0);
    expect(await keyNamed('Reporting')).toHaveLength(1);
    await page.context().close();
  });

  it('keeps a new secret selectable without script: no dead Copy button', async () => {
    const page = await operator(390, { javaScript: false });
    const { client } = await demo.switchboard.oauth!.admin.registerClient({
      name: 'Backoffice',
      type: 'confidential',
      redirectUris: ['https://backoffice.example.com/cb'],
      scopes: ['crm.clients.read'],
    });
    await page.goto(`${demo.base}/console/oauth-clients/${client.id}`);
    await page.getByRole('link', { name: 'Rotate the client secret…' }).click();
    await page.getByRole('heading', { name: 'Rotate the secret of Backoffice?' }).waitFor();
    await check(page, 'rotate-secret-confirmation-390', { axe: false });
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    expect(await page.locator('code.secret').textContent()).toMatch(/^sbcs_/);
    expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(0);
    await check(page, 'secret-rotated-390', { axe: false });
    await page.context().close();
  });

  for (const width of [1280, 390]) {
    it(`revokes a key after its confirmation page, and refuses the session's own key, at ${width} px`, async () => {
      const { apiKey, key } = await demo.switchboard.oauth!.admin.createApiKey({
        name: `Old sync ${width}`,
        scopes: ['crm.clients.read'],
      });
      const page = await operator(width);
      await page.goto(`${demo.base}/console/api-keys`);
      await page.getByRole('link', { name: `Revoke Old sync ${width}` }).click();
      await page.getByRole('heading', { name: `Revoke the key Old sync ${width}?` }).waitFor();
      // Asking is not doing.
      expect((await get(demo, '/api/v1/clients', key)).status).toBe(200);
      await check(page, `revoke-key-confirmation-${width}`);
      await page.getByRole('button', { name: `Revoke Old sync ${width}` }).click();
      expect(await page.getByRole('status').first().textContent()).toContain('revoked');
      expect((await get(demo, '/api/v1/clients', key)).status).toBe(401);
      expect(await page.getByRole('row').filter({ hasText: apiKey.prefix }).textContent()).toContain(
        'revoked',
      );

      const own = (await demo.switchboard.oauth!.admin.listApiKeys()).find((k) => k.name === 'admin (host)')!;
      const refused = await page.goto(`${demo.base}/console/api-keys/${own.id}/revoke`);
      expect(refused?.status()).toBe(409);
      expect(await page.getByRole('alert').textContent()).toContain(
        'the key this console session is signed in with',
      );
      expect((await get(demo, '/api/v1/clients', ADMIN_KEY)).status).toBe(200);
      await check(page, `revoke-own-key-refused-${width}`);
      await page.context().close();
    });
  }

  it('shows one grant per user and app after two authorizations, named by the user, found by name and app', async () => {
    const admin = demo.switchboard.oauth!.admin;
    for (const grant of await admin.listGrants({ userId: demo.ada.id })) await admin.revokeGrant(grant.id);
    await tokensFor(demo, demo.ada, { scope: 'crm.clients.read' });
    const second = await tokensFor(demo, demo.ada, { scope: 'crm.orders.read' });
    await tokensFor(demo, demo.grace);

    const page = await operator(1280);
    await page.getByRole('link', { name: 'Grants' }).click();
    await page.getByLabel('User (name or e-mail)').fill('lovelace');
    await page.getByLabel('Application').fill('Support');
    await page.getByRole('button', { name: 'Show' }).click();
    const rows = page.getByRole('row').filter({ hasText: 'Support bot' });
    expect(await rows.count()).toBe(1);
    const text = (await rows.first().textContent())!;
    expect(text).toContain('Ada Lovelace (ada@example.com)');
    expect(text).not.toContain(demo.ada.id);
    expect(text).toContain('crm.clients.read crm.orders.read');
    await check(page, 'grants-1280');
    await page.setViewportSize({ width: 390, height: 900 });
    await check(page, 'grants-390');

    await page.getByRole('link', { name: 'Revoke Support bot' }).click();
    await page
      .getByRole('heading', { name: 'Revoke what Ada Lovelace (ada@example.com) allowed Support bot?' })
      .waitFor();
    await page.getByRole('button', { name: 'Revoke Support bot’s access' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('revoked');
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, second.access_token)).status).toBe(401);
    await page.context().close();
  });

  for (const width of [1280, 390]) {
    it(`names the signed-in user, lists her apps in the consent page's words, and says what she may not do, at ${width} px`, async () => {
      await tokensFor(demo, demo.ada, { scope: 'crm.clients.read crm.orders.read' });
      const page = await user(width, demo.ada);
      expect(await page.getByText('Signed in as Ada Lovelace (ada@example.com)').count()).toBe(1);
      const row = page.getByRole('row').filter({ hasText: 'Support bot' });
      expect(await row.count()).toBe(1);
      const words = admin().scopes['crm.clients.read']!;
      expect(await row.textContent()).toContain(words);
      expect(await row.textContent()).not.toContain('crm.clients.read');
      await check(page, `connected-apps-${width}`);

      await page.getByRole('link', { name: 'Remove access of Support bot' }).click();
      await page.getByRole('heading', { name: 'Remove the access of Support bot?' }).waitFor();
      await check(page, `remove-access-confirmation-${width}`);

      const forbidden = await page.goto(`${demo.base}/console/api-keys`);
      expect(forbidden?.status()).toBe(403);
      const said = (await page.getByRole('alert').textContent())!;
      expect(said).toContain('You are not allowed to register OAuth clients and manage API keys');
      expect(said).not.toMatch(/key does not have/i);
      await check(page, `forbidden-${width}`);

      const missing = await page.goto(`${demo.base}/console/no-such-page`);
      expect(missing?.status()).toBe(404);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      await page.context().close();
    });
  }

  const admin = () => demo.switchboard.oauth!.admin;
});

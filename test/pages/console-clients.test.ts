/**
 * The console's OAuth client pages in a real headless Chromium, at 1280 and 390 px with axe-core: who
 * registered each client and its status, approving a self-registered one, choosing the MCP tools it may
 * call, disabling and enabling it, and deleting it through a confirmation page that needs no script.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/index.js';
import { ADMIN_KEY, type Demo, startDemo } from '../oauth/support.js';
import { seriousViolations } from '../support/axe.js';

const executablePath =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);

describe('the console’s OAuth client pages in a browser', () => {
  let demo: Demo;
  let browser: Browser;
  let agentId = '';

  beforeAll(async () => {
    if (!executablePath) throw new Error('Install Chromium (apt-get install chromium) or set CHROMIUM_PATH.');
    demo = await startDemo({ clock: systemClock });
    // An MCP agent that registered itself (RFC 7591): nobody vouched for it yet.
    const registered = await fetch(`${demo.base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Roaming agent',
        redirect_uris: ['http://127.0.0.1:9911/oauth/callback'],
        token_endpoint_auth_method: 'none',
      }),
    });
    agentId = ((await registered.json()) as { client_id: string }).client_id;
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  async function signedIn(width: number, options: { javaScript?: boolean } = {}): Promise<Page> {
    // axe-core is injected past the pages' CSP, for the test only.
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      bypassCSP: true,
      javaScriptEnabled: options.javaScript ?? true,
    });
    const page = await context.newPage();
    await page.goto(`${demo.base}/console`);
    await page.getByLabel('Admin API key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
    return page;
  }

  async function check(page: Page, name: string): Promise<void> {
    expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} fits its width`).toBeLessThanOrEqual(0);
  }

  const row = (page: Page, name: string) => page.getByRole('row').filter({ hasText: name });
  const clientOf = (id: string) => demo.switchboard.oauth!.admin.getClient(id);

  for (const width of [1280, 390]) {
    it(`lists who registered each client and its status, at ${width} px`, async () => {
      const page = await signedIn(width);
      await page.getByRole('link', { name: 'OAuth clients' }).click();
      await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
      await expect.poll(() => row(page, 'Roaming agent').textContent()).toContain('itself');
      expect(await row(page, 'Roaming agent').textContent()).toContain('unverified');
      expect(await row(page, 'Support bot').textContent()).toContain('an operator');
      await check(page, `oauth-clients at ${width} px`);
      await page.getByRole('link', { name: 'Support bot' }).click();
      await page.getByRole('heading', { name: 'OAuth client Support bot' }).waitFor();
      expect(await page.getByRole('checkbox', { name: 'list_bookings' }).count()).toBe(1);
      await check(page, `oauth-client at ${width} px`);
      await page.getByRole('link', { name: 'Delete this client…' }).click();
      await page.getByRole('heading', { name: 'Delete Support bot?' }).waitFor();
      await check(page, `the delete confirmation at ${width} px`);
      await page.context().close();
    });
  }

  it('approves a self-registered client, restricts its tools, disables and enables it', async () => {
    const page = await signedIn(1280);
    await page.goto(`${demo.base}/console/oauth-clients/${agentId}`);
    await page.getByRole('button', { name: 'Approve' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('Approved');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await clientOf(agentId)).toMatchObject({ approved: true, mcpTools: null });

    await page.getByLabel('Only the tools ticked below').check();
    await page.getByRole('checkbox', { name: 'list_bookings' }).check();
    await page.getByRole('button', { name: 'Save tools' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('1 tool(s)');
    expect((await clientOf(agentId)).mcpTools).toEqual(['list_bookings']);
    expect(await page.getByRole('checkbox', { name: 'list_bookings' }).isChecked()).toBe(true);
    await check(page, 'a restricted client');
    await page.getByLabel('All tools its scopes allow').check();
    await page.getByRole('button', { name: 'Save tools' }).click();
    expect((await clientOf(agentId)).mcpTools).toBeNull();

    await page.getByRole('link', { name: 'Disable…' }).click();
    await page.getByRole('heading', { name: 'Disable Roaming agent?' }).waitFor();
    expect((await clientOf(agentId)).disabled).toBe(false);
    await page.getByRole('button', { name: 'Disable Roaming agent' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('Disabled');
    expect((await clientOf(agentId)).disabled).toBe(true);
    await page.getByRole('button', { name: 'Enable' }).click();
    expect((await clientOf(agentId)).disabled).toBe(false);
    await page.context().close();
  });

  it('deletes a client after a confirmation page, with the script turned off', async () => {
    const { client } = await demo.switchboard.oauth!.registerClient({
      name: 'Short-lived app',
      type: 'public',
      redirectUris: ['http://127.0.0.1:9911/cb'],
      scopes: ['crm.clients.read'],
    });
    const page = await signedIn(390, { javaScript: false });
    await page.goto(`${demo.base}/console/oauth-clients/${client.id}`);
    await page.getByRole('link', { name: 'Delete this client…' }).click();
    await page.getByRole('heading', { name: 'Delete Short-lived app?' }).waitFor();
    expect(await clientOf(client.id)).toMatchObject({ id: client.id });
    await page.getByRole('button', { name: 'Delete Short-lived app' }).click();
    await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();
    expect(await page.getByRole('status').first().textContent()).toContain('deleted');
    await expect(clientOf(client.id)).rejects.toMatchObject({ code: 'not_found' });
    await page.context().close();
  });
});

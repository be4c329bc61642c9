/**
 * The pages a person uses, in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * they load nothing from outside the server, and axe-core finds no serious or critical violation.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, authorizationUrl, type Demo, REDIRECT, startDemo } from '../oauth/support.js';
import { seriousViolations } from '../support/axe.js';

const executablePath =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
/** Where the pages are photographed for a person to look at (gitignored). */
const SHOTS = 'test/.screenshots';

describe('pages in a browser', () => {
  let demo: Demo;
  let browser: Browser;
  beforeAll(async () => {
    if (!executablePath) throw new Error('Install Chromium (apt-get install chromium) or set CHROMIUM_PATH.');
    demo = await startDemo({ graphql: {} });
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  /** Opens the page, recording every request that leaves the server; runs axe-core on what it shows. */
  async function audit(url: string | URL): Promise<{ page: Page; outside: string[]; serious: string[] }> {
    // The pages' CSP forbids scripts, as it should: axe is injected past it, for the test only.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(demo.base)) outside.push(request.url());
    });
    await page.goto(String(url));
    return { page, outside, serious: await seriousViolations(page) };
  }

  it('sign-in, then consent: two steps, self-contained and accessible, ending in the app with a code', async () => {
    const { page, outside, serious } = await audit(authorizationUrl(demo).url);
    await page.route(`${REDIRECT}**`, (route) => route.fulfill({ status: 200, body: 'back in the app' }));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Sign in to continue to Support bot',
    );
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(serious).toEqual([]);

    await page.getByLabel('E-mail', { exact: true }).fill(demo.ada.email);
    await page.getByLabel('Password', { exact: true }).fill(demo.ada.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Allow Support bot access?' }).waitFor();
    expect(await page.getByText(`Signed in as ${demo.ada.email}`).count()).toBe(1);
    expect(await page.getByRole('checkbox', { checked: true }).count()).toBe(2);
    expect(await page.getByText('With nothing ticked, Allow is the same as Refuse').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('checkbox').first().uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    expect(new URL(page.url()).searchParams.get('code')).toMatch(/^sbac_/);
    // Nothing left the server but the final redirect to the app.
    expect(outside.filter((url) => !url.startsWith(REDIRECT))).toEqual([]);
  });

  it('sign-in: Cancel needs no password, and a wrong password keeps the e-mail', async () => {
    const page = await (await browser.newContext()).newPage();
    // The app's redirect URI: answered here, so the browser can land on it.
    await page.route(`${REDIRECT}**`, (route) => route.fulfill({ status: 200, body: 'back in the app' }));
    await page.goto(String(authorizationUrl(demo).url));
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');

    await page.goto(String(authorizationUrl(demo).url));
    await page.getByLabel('E-mail', { exact: true }).fill(demo.ada.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not right');
    expect(await page.getByLabel('E-mail', { exact: true }).inputValue()).toBe(demo.ada.email);
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');

    // Signed in, Refuse on the consent step ends it too.
    await page.getByLabel('Password', { exact: true }).fill(demo.ada.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Refuse' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
  });

  it('the error page: names the app, offers a way back, self-contained and accessible', async () => {
    const { client } = await demo.switchboard.oauth!.registerClient({
      name: 'Salon bot',
      type: 'public',
      redirectUris: ['https://salon.example.com/callback'],
      scopes: ['crm.clients.read'],
    });
    const url = authorizationUrl(demo, {
      client_id: client.id,
      redirect_uri: 'https://evil.example.com/cb',
    }).url;
    const { page, outside, serious } = await audit(url);
    expect(await page.getByRole('alert').textContent()).toContain('not registered');
    expect(await page.getByRole('link', { name: 'Return to Salon bot' }).getAttribute('href')).toBe(
      'https://salon.example.com',
    );
    expect(outside).toEqual([]);
    expect(serious).toEqual([]);
  });

  it('the REST reference: rendered descriptions, self-contained and accessible', async () => {
    const { page, outside, serious } = await audit(`${demo.base}/api/v1/docs`);
    expect(await page.locator('code', { hasText: 'Idempotency-Key' }).count()).toBeGreaterThan(0);
    expect(outside).toEqual([]);
    expect(serious).toEqual([]);
  });

  it('GraphiQL: served by this server under a CSP of its own origin, the Authorization header set in the page', async () => {
    // The page's own CSP stays on here: any script, style or font it blocked would show as an error.
    // And the browser is offline: anything but this server fails.
    const context = await browser.newContext();
    await context.route(
      (url) => !url.href.startsWith(demo.base),
      (route) => route.abort('internetdisconnected'),
    );
    const page = await context.newPage();
    const outside: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(demo.base)) outside.push(request.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(`${demo.base}/graphql`);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    const queryEditor = page.locator('.graphiql-query-editor .CodeMirror');
    const result = () =>
      page.evaluate(() => {
        const element = document.querySelector('.result-window .CodeMirror') as unknown as {
          CodeMirror: { getValue(): string };
        };
        return element.CodeMirror.getValue();
      });
    const run = async (query: string) => {
      await queryEditor.click();
      await page.keyboard.press('Control+A');
      await page.keyboard.type(query);
      await page.keyboard.press('Control+Enter');
    };

    // The Headers tab is open from the start; what is typed there goes with every request.
    await page.getByRole('button', { name: 'Headers' }).waitFor();
    await page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror').click();
    await page.keyboard.type(JSON.stringify({ Authorization: `Bearer ${ADMIN_KEY}` }));
    await run('{ clients(limit: 1) { name } }');
    await expect.poll(result).toContain('Ada Lovelace');

    // Subscriptions go over WebSocket, authenticated by the same header.
    const socket = page.waitForEvent('websocket');
    await run('subscription { onNewMessage(chatbotId: "bot_graphiql") { content } }');
    expect((await socket).url()).toBe(`${demo.base.replace('http', 'ws')}/graphql`);
    await expect
      .poll(async () => {
        await demo.switchboard.domain.messages.create({
          chatbotId: 'bot_graphiql',
          visitorId: 'v',
          content: 'hello GraphiQL',
        });
        return result();
      })
      .toContain('hello GraphiQL');

    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
    const { serious } = await audit(`${demo.base}/graphql`);
    expect(serious).toEqual([]);
  });

  /** Opens a page at a width and colour scheme, the consent page through its sign-in step. */
  async function openAt(
    name: string,
    width: number,
    colorScheme: 'light' | 'dark',
  ): Promise<{ page: Page; outside: string[] }> {
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      colorScheme,
      bypassCSP: true,
    });
    const page = await context.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(demo.base)) outside.push(request.url());
    });
    if (name === 'consent') {
      await page.goto(String(authorizationUrl(demo).url));
      await page.getByLabel('E-mail', { exact: true }).fill(demo.ada.email);
      await page.getByLabel('Password', { exact: true }).fill(demo.ada.password);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Allow Support bot access?' }).waitFor();
    } else {
      if (name.startsWith('console-') && name !== 'console-sign-in') {
        await page.goto(`${demo.base}/console/sign-in`);
        await page.getByLabel('Admin API key').fill(ADMIN_KEY);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.waitForURL((url) => !url.pathname.endsWith('/sign-in'));
      }
      await page.goto(LOOK_PAGES[name]!(demo));
    }
    return { page, outside };
  }

  /** Every kind of page but GraphiQL (its editor is GraphiQL's own; its test is above, its photo below). */
  const LOOK_PAGES: Record<string, (demo: Demo) => string> = {
    'sign-in': (d) => String(authorizationUrl(d).url),
    consent: (d) => String(authorizationUrl(d).url),
    'oauth-error': (d) => String(authorizationUrl(d, { client_id: 'oac_nobody' }).url),
    'rest-reference': (d) => `${d.base}/api/v1/docs`,
    problem: (d) => `${d.base}/problems/validation_failed`,
    'console-sign-in': (d) => `${d.base}/console/sign-in`,
    'console-webhooks': (d) => `${d.base}/console/webhooks`,
    'console-event-catalogue': (d) => `${d.base}/console/event-types`,
  };

  it.each([1280, 390].flatMap((width) => Object.keys(LOOK_PAGES).map((name) => [name, width] as const)))(
    '%s in the one look at %i px: no horizontal scroll, axe-core clean in light and dark',
    async (name, width) => {
      mkdirSync(SHOTS, { recursive: true });
      for (const scheme of ['light', 'dark'] as const) {
        const { page, outside } = await openAt(name, width, scheme);
        const label = `${name} at ${width} px, ${scheme}`;
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${label} fits its width`).toBeLessThanOrEqual(0);
        expect(await seriousViolations(page), `axe on ${label}`).toEqual([]);
        expect(outside, label).toEqual([]);
        // The look is on: the page's background is the look's, dark in dark mode.
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        expect(background, label).toBe(scheme === 'dark' ? 'rgb(21, 24, 28)' : 'rgb(255, 255, 255)');
        if (scheme === 'light' || name === 'consent' || name === 'rest-reference') {
          const path = `${SHOTS}/look-${name}-${width}-${scheme}.png`;
          await page.screenshot({ path, fullPage: name !== 'rest-reference' });
        }
        await page.context().close();
      }
    },
    60_000,
  );

  it("consent: Allow is the one filled button, Refuse outlined; the fields run the form's width", async () => {
    const { page } = await openAt('consent', 390, 'light');
    const fill = (name: string) =>
      page.getByRole('button', { name, exact: true }).evaluate((b) => getComputedStyle(b).backgroundColor);
    expect(await fill('Allow')).toBe('rgb(11, 87, 208)');
    expect(await fill('Refuse')).toBe('rgba(0, 0, 0, 0)');
    await page.context().close();
    const signIn = await openAt('sign-in', 390, 'light');
    const box = await signIn.page.getByLabel('E-mail', { exact: true }).boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    await signIn.page.context().close();
  });

  it('the REST reference: contents by tag, and Try it sends the typed Authorization and shows the answer', async () => {
    // The page's own CSP stays on: the try-it script runs because it is served from here.
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    const sent: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/clients')) sent.push(request.headers().authorization);
    });
    await page.goto(`${demo.base}/api/v1/docs`);
    // On a phone the contents are folded: one tap opens them.
    const contents = page.getByRole('navigation', { name: 'Contents' });
    await contents.getByText('Contents', { exact: true }).click();
    await contents.getByRole('link', { name: 'GET /api/v1/clients', exact: true }).click();
    expect(new URL(page.url()).hash).toBe('#listClients');
    await page.locator('#listClients').getByText('Try it', { exact: true }).click();

    await page.getByLabel('Authorization for “Try it”').fill(`Bearer ${ADMIN_KEY}`);
    const form = page.getByRole('form', { name: 'Try listClients' });
    await form.getByLabel('limit', { exact: true }).fill('1');
    await form.getByRole('button', { name: 'Send GET' }).click();
    const answer = form.locator('output');
    await expect.poll(() => answer.textContent()).toContain('200 OK');
    expect(await answer.textContent()).toContain('GET /api/v1/clients?limit=1');
    expect(await answer.textContent()).toContain('"name"');
    expect(sent).toEqual([`Bearer ${ADMIN_KEY}`]);
    // Kept in the page only: nothing stored, no cookie set.
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
    expect(await context.cookies()).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/look-rest-reference-try-it-390-light.png` });
    await context.close();
  });

  it.each([1280, 390])("GraphiQL's frame at %i px: the one look's header above GraphiQL", async (width) => {
    mkdirSync(SHOTS, { recursive: true });
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${demo.base}/graphql`);
    await page.getByRole('button', { name: 'Headers' }).waitFor();
    expect(await page.locator('header.site-header').textContent()).toBe('Switchboard GraphiQL');
    // GraphiQL fills the window below the header: the page itself does not scroll.
    const box = await page.locator('#graphiql').boundingBox();
    expect(box!.y + box!.height).toBeLessThanOrEqual(900);
    await page.screenshot({ path: `${SHOTS}/look-graphiql-${width}-light.png` });
    await context.close();
  });

  it("a host's branding: its name, its logo loading under the page's own CSP, its accent on Allow", async () => {
    const logo =
      "data:image/svg+xml,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%20width='28'%20height='28'%3E%3Ccircle%20cx='14'%20cy='14'%20r='12'%20fill='%237b2cbf'/%3E%3C/svg%3E";
    const branded = await startDemo({ look: { name: 'Acme support', accent: '#7b2cbf', logoUrl: logo } });
    try {
      const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
      });
      await page.goto(String(authorizationUrl(branded).url));
      await page.getByLabel('E-mail', { exact: true }).fill(branded.ada.email);
      await page.getByLabel('Password', { exact: true }).fill(branded.ada.password);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Allow Support bot access?' }).waitFor();
      expect(await page.locator('header.site-header').textContent()).toBe('Acme support');
      expect(await page.title()).toBe('Allow Support bot access? · Acme support');
      const shown = await page
        .locator('img.site-logo')
        .evaluate((img) => (img as HTMLImageElement).naturalWidth);
      expect(shown).toBe(28);
      const fill = await page
        .getByRole('button', { name: 'Allow', exact: true })
        .evaluate((b) => getComputedStyle(b).backgroundColor);
      expect(fill).toBe('rgb(123, 44, 191)');
      expect(refused).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/look-consent-branded-390-light.png`, fullPage: true });
      await context.close();
    } finally {
      await branded.close();
    }
  });
});

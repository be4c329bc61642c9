/**
 * The console is served from the shared route table over HTTP: a path it does not serve is 404 and a
 * method a path does not serve is 405 with `Allow`, both as pages in the console's look (or
 * problem+json for a caller that reads no HTML); a signed-in page is charged to the operator's budget;
 * a refused form comes back with its errors beside its fields, a change answers 303 and a new secret is
 * shown on the next page of that session only; the session's own key is not revoked; and what a caller
 * wrote is escaped by the pages' one template.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  ADMIN_KEY,
  type ConsoleInstance,
  closeConsoles,
  get,
  post,
  type Session,
  signIn,
  startConsoles,
} from './support.js';

describe('console routes', () => {
  let consoles: ConsoleInstance[];
  let base: string;
  let session: Session;
  beforeAll(async () => {
    const storage = createMemoryStorage();
    consoles = await startConsoles(() => storage, 1);
    base = consoles[0]!.base;
    session = await signIn(base, { api_key: ADMIN_KEY });
  });
  afterAll(() => closeConsoles(consoles));

  /** What makes a page the console's: its frame, its style sheet, its strict headers. */
  async function expectConsolePage(response: Response, status: number, title: string): Promise<string> {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await response.text();
    expect(page).toContain(`<title>${title} · Switchboard console</title>`);
    expect(page).toContain(`<h1>${title}</h1>`);
    expect(page).toMatch(/<link rel="stylesheet" href="\/console\/assets\/look-\w+\.css">/);
    expect(page).toMatch(/<link rel="stylesheet" href="\/console\/assets\/console-\w+\.css">/);
    return page;
  }

  it('answers a path it does not serve with 404 in its own look, signed in or not', async () => {
    for (const cookie of [undefined, session.cookie]) {
      const response = await fetch(`${base}/no-such-page`, { headers: cookie ? { cookie } : {} });
      const page = await expectConsolePage(response, 404, 'Page not found');
      expect(page).toContain('Nothing is served at /console/no-such-page.');
      expect(page).toContain('<a href="/console/">Back to the console</a>');
    }
  });

  it('answers a method a path does not serve with 405 and the methods it does serve in Allow', async () => {
    const put = await fetch(`${base}/webhooks`, { method: 'PUT', headers: { cookie: session.cookie } });
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    expect(await expectConsolePage(put, 405, 'Method not allowed')).toContain(
      'PUT is not served at /console/webhooks; use GET, HEAD, POST, OPTIONS.',
    );
    const post = await fetch(`${base}/event-types`, { method: 'POST', headers: { cookie: session.cookie } });
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    await expectConsolePage(post, 405, 'Method not allowed');
    const options = await fetch(`${base}/webhooks`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
  });

  it('answers a caller that reads no HTML with problem+json: a JSON client, the live feed', async () => {
    const missing = await fetch(`${base}/no-such-page`, { headers: { accept: 'application/json' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect(await missing.json()).toMatchObject({ code: 'not_found', status: 404 });
    // The feed's script cannot follow a redirect to a page: an ended session is 401, as a problem.
    const feed = await fetch(`${base}/activity/stream`, { headers: { accept: 'text/event-stream' } });
    expect(feed.status).toBe(401);
    expect(feed.headers.get('content-type')).toBe('application/problem+json');
    expect(await feed.json()).toMatchObject({ code: 'unauthorized' });
  });

  it('answers HEAD for every page it serves to GET, without a body', async () => {
    const head = await fetch(`${base}/webhooks`, { method: 'HEAD', headers: { cookie: session.cookie } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await head.text()).toBe('');
  });

  it('answers a refused form with the form again (422), each error beside its field in its words, the values kept', async () => {
    const refused = await post(base, '/oauth-clients', session, {
      name: 'Kiosk <1>',
      type: 'public',
      redirectUris: 'kiosk.example.com/cb',
    });
    const page = await expectConsolePage(refused, 422, 'OAuth clients');
    expect(page).toContain('Nothing was saved');
    expect(page).toMatch(
      /<p class="field-error" id="redirectUris-error">Redirect URIs \(line 1\): [^<]*absolute URL/,
    );
    expect(page).toContain('aria-describedby="redirectUris-error"');
    expect(page).toContain('value="Kiosk &lt;1&gt;"');
    expect(page).toContain('>kiosk.example.com/cb</textarea>');
    expect(page).not.toContain('Go back');
  });

  it('redirects after a change (303), and shows a new secret on the next page only', async () => {
    const created = await post(base, '/api-keys', session, { name: 'Once', scopes: 'admin.oauth.write' });
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toMatch(/^\/console\/api-keys\?notice=/);
    const carried = created.headers.get('set-cookie')!.split(';')[0]!;
    expect(carried).toMatch(/^sb_console_once=/);
    // Sealed: the key is not in the cookie, nor in the URL.
    const next = { ...session, cookie: `${session.cookie}; ${carried}` };
    const shown = await get(base, created.headers.get('location')!.replace('/console', ''), next);
    const page = await shown.text();
    expect(page).toMatch(/<code class="secret">sbk_/);
    expect(shown.headers.get('set-cookie')).toMatch(/^sb_console_once=; .*Max-Age=0/);
    // Another session's cookie, or none, shows nothing.
    const other = await signIn(base, { api_key: ADMIN_KEY });
    const elsewhere = await get(base, '/api-keys', { ...other, cookie: `${other.cookie}; ${carried}` });
    expect(await elsewhere.text()).not.toContain('class="secret"');
  });

  it('refuses to revoke the key the session is signed in with, saying why (409), on its page and its post', async () => {
    const keys = await consoles[0]!.switchboard.oauth!.admin.listApiKeys();
    const own = keys.find((k) => k.prefix && ADMIN_KEY.startsWith(k.prefix))!;
    for (const response of [
      await get(base, `/api-keys/${own.id}/revoke`, session),
      await post(base, `/api-keys/${own.id}/revoke`, session),
    ]) {
      expect(response.status).toBe(409);
      expect(await response.text()).toContain('the key this console session is signed in with');
    }
    expect((await get(base, '/api-keys', session)).status).toBe(200);
  });

  it("charges a signed-in page to the operator's read budget, and a form to the write budget", async () => {
    const page = await get(base, '/webhooks', session);
    expect(page.headers.get('ratelimit-policy')).toMatch(/^"read";q=\d+;w=\d+$/);
    const form = await fetch(`${base}/api-keys`, {
      method: 'POST',
      headers: { cookie: session.cookie, origin: new URL(base).origin },
      body: new URLSearchParams({ _csrf: session.csrf, name: 'budgeted', scopes: 'admin.oauth.write' }),
      redirect: 'manual',
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('ratelimit-policy')).toMatch(/^"write";/);
  });

  it('escapes what a caller wrote: a key named with markup shows as text', async () => {
    await consoles[0]!.switchboard.oauth!.admin.createApiKey({
      name: '<img src=x onerror=alert(1)>',
      scopes: ['crm.clients.read'],
    });
    const page = await (await get(base, '/api-keys', session)).text();
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain('<img src=x');
  });
});

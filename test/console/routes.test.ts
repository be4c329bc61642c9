/**
 * The console is served from the shared route table over HTTP: a path it does not serve is 404 and a
 * method a path does not serve is 405 with `Allow`, both as pages in the console's look (or
 * problem+json for a caller that reads no HTML); a signed-in page is charged to the operator's budget;
 * and what a caller wrote is escaped by the pages' one template.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  ADMIN_KEY,
  type ConsoleInstance,
  closeConsoles,
  get,
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
      const page = await expectConsolePage(response, 404, 'Not found');
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

  it("charges a signed-in page to the operator's read budget, and a form to the write budget", async () => {
    const page = await get(base, '/webhooks', session);
    expect(page.headers.get('ratelimit-policy')).toMatch(/^"read";q=\d+;w=\d+$/);
    const form = await fetch(`${base}/api-keys`, {
      method: 'POST',
      headers: { cookie: session.cookie, origin: new URL(base).origin },
      body: new URLSearchParams({ _csrf: session.csrf, name: 'budgeted', scopes: 'admin.oauth.write' }),
    });
    expect(form.status).toBe(200);
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

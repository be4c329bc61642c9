/**
 * One look for every page (issue 31): each kind of page the library serves links the one style sheet
 * (`…/look-<hash>.css`, the same bytes wherever its block serves it), carries no inline style, and
 * answers with a CSP that allows no inline style; the host's name, logo and accent reach every page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDomain, createRuntime, createSwitchboard, trustEveryone } from '../../src/index.js';
import { createAuthorizationServer } from '../../src/oauth/index.js';
import { createRestHandler } from '../../src/rest/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { signIn } from '../console/support.js';
import {
  ADMIN_KEY,
  authorizationUrl,
  type Demo,
  openConsentPage,
  signInOnPage,
  startDemo,
} from '../oauth/support.js';

const LOOK = {
  name: 'Acme support',
  accent: '#7b2cbf',
  logoUrl: 'data:image/svg+xml,%3Csvg%20xmlns=%22http://www.w3.org/2000/svg%22/%3E',
};
const STYLESHEET = /<link rel="stylesheet" href="([^"]*\/look-[a-z0-9]+\.css)">/;

describe('one look for every page', () => {
  let demo: Demo;
  /** Each kind of page, by name: its response and its HTML. */
  const pages = new Map<string, { response: Response; html: string }>();

  beforeAll(async () => {
    demo = await startDemo({
      look: LOOK,
      graphql: {},
      rest: {
        versions: [
          { basePath: '/api/v1', apiVersion: 1 },
          { basePath: '/api/v2', apiVersion: 2 },
        ],
      },
    });
    const keep = async (name: string, response: Response) =>
      pages.set(name, { response, html: await response.text() });
    const signInPage = await openConsentPage(authorizationUrl(demo).url);
    pages.set('sign-in', { response: signInPage.response, html: signInPage.html });
    const consent = await signInOnPage(signInPage, demo.ada, demo.base);
    expect(consent.signIn).toBe(false);
    pages.set('consent', { response: consent.response, html: consent.html });
    await keep('OAuth error', await fetch(authorizationUrl(demo, { client_id: 'oac_nobody' }).url));
    const console = `${demo.base}/console`;
    await keep('console sign-in', await fetch(`${console}/sign-in`));
    const session = await signIn(console, { api_key: ADMIN_KEY });
    const headers = { cookie: session.cookie };
    await keep('console webhooks', await fetch(`${console}/webhooks`, { headers }));
    await keep('event catalogue', await fetch(`${console}/event-types`, { headers }));
    await keep('REST reference v1', await fetch(`${demo.base}/api/v1/docs`));
    await keep('REST reference v2', await fetch(`${demo.base}/api/v2/docs`));
    await keep('problem page', await fetch(`${demo.base}/problems/not_found`));
    await keep('GraphiQL', await fetch(`${demo.base}/graphql`, { headers: { accept: 'text/html' } }));
  });
  afterAll(async () => {
    await demo?.close();
  });

  it('serves every kind of page', () => {
    expect([...pages.keys()]).toHaveLength(10);
    for (const [name, { response, html }] of pages) {
      expect(response.status, name).toBe(name === 'OAuth error' ? 400 : 200);
      expect(response.headers.get('content-type'), name).toBe('text/html; charset=utf-8');
      expect(html, name).toMatch(/^<!doctype html>/);
    }
  });

  it('every page links the one style sheet, and each block serves the same bytes at its link', async () => {
    const bodies = new Set<string>();
    for (const [name, { response, html }] of pages) {
      const href = STYLESHEET.exec(html)?.[1];
      expect(href, `${name} links the look`).toBeDefined();
      const sheet = await fetch(new URL(href!, response.url));
      expect(sheet.status, `${name}: ${href}`).toBe(200);
      expect(sheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect(sheet.headers.get('cache-control')).toContain('immutable');
      bodies.add(await sheet.text());
    }
    expect(bodies.size).toBe(1);
    // The host's accent is in it, so its name changes with the accent.
    expect([...bodies][0]).toContain(`--accent:${LOOK.accent}`);
  });

  it('no page carries an inline style, and no CSP allows one', () => {
    for (const [name, { response, html }] of pages) {
      expect(html, name).not.toMatch(/<style[\s>]|\sstyle=/i);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, name).toContain("style-src 'self'");
      expect(csp, name).not.toContain('unsafe-inline');
    }
  });

  it("every page shows the host's name and logo, and its CSP lets the logo load", () => {
    for (const [name, { response, html }] of pages) {
      expect(html, name).toContain(`<img class="site-logo" src="${LOOK.logoUrl}" alt="">`);
      expect(html, name).toContain(LOOK.name);
      expect(response.headers.get('content-security-policy'), name).toMatch(/img-src 'self'[^;]* data:/);
    }
  });

  it('on the consent page Allow is the primary button and Refuse a secondary one', () => {
    const html = pages.get('consent')!.html;
    expect(html).toContain('<button type="submit" name="decision" value="approve">Allow</button>');
    expect(html).toContain(
      '<button type="submit" name="decision" value="refuse" class="secondary">Refuse</button>',
    );
  });
});

describe('the look option', () => {
  it.each([
    ['an accent that is not a colour', { accent: 'red;} body{display:none' }, 'look.accent'],
    ['a logo from plain http', { logoUrl: 'http://cdn.example.com/logo.png' }, 'look.logoUrl'],
    ['a logo that is a script URL', { logoUrl: 'javascript:alert(1)' }, 'look.logoUrl'],
    ['a data: URL that is not an image', { logoUrl: 'data:text/html,<b>x</b>' }, 'look.logoUrl'],
  ])('refuses %s at construction, naming the option', (_, look, option) => {
    for (const make of [
      () => createSwitchboard({ look }),
      () => createRuntime({ storage: createMemoryStorage(), look }),
    ]) {
      expect(make).toThrow(
        expect.objectContaining({ code: 'bad_request', message: expect.stringContaining(option) }),
      );
    }
  });

  it("an https logo's origin, and only it, is added to the pages' img-src", async () => {
    const switchboard = createSwitchboard({ look: { logoUrl: 'https://cdn.example.com/acme/logo.svg' } });
    const page = await switchboard.fetch(new Request('http://localhost/problems/not_found'));
    expect(page.headers.get('content-security-policy')).toContain("img-src 'self' https://cdn.example.com;");
  });

  it('a block used alone takes the look from its runtime and serves the style sheet itself', async () => {
    const runtime = createRuntime({
      storage: createMemoryStorage(),
      look: { name: 'Acme support', accent: '#7b2cbf' },
    });
    const rest = createRestHandler(runtime, { domain: createDomain(runtime), authenticate: trustEveryone });
    const oauth = createAuthorizationServer(runtime, {});
    const served: string[] = [];
    for (const [handler, url] of [
      [rest, 'http://localhost/api/v1/docs'],
      [oauth.fetch, `http://localhost/oauth/authorize?client_id=oac_nobody`],
    ] as const) {
      const html = await (await handler(new Request(url))).text();
      expect(html).toContain('Acme support');
      const href = STYLESHEET.exec(html)![1]!;
      const sheet = await handler(new Request(new URL(href, url)));
      expect(sheet.status, href).toBe(200);
      served.push(await sheet.text());
    }
    expect(served[0]).toContain('--accent:#7b2cbf');
    expect(served[1]).toBe(served[0]);
  });
});

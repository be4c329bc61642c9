/** Sign-in and consent are pluggable: the host's own session, and the host's own consent page. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentView } from '../../src/oauth/index.js';
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

/** The rules of the authorization endpoint and its sign-in/consent page, one test each. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients, orders } from '../../src/index.js';
import {
  authorizationUrl,
  authorizeThroughPage,
  type Demo,
  openConsentPage,
  REDIRECT,
  signInOnPage,
  startDemo,
  submitConsent,
} from './support.js';

describe('authorization endpoint', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo();
  });
  afterAll(() => demo.close());

  const errorRedirect = async (params: Record<string, string | null>) => {
    const { url, state } = authorizationUrl(demo, params);
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('iss')).toBe(demo.base);
    expect(location.searchParams.has('code')).toBe(false);
    return location.searchParams;
  };

  it('shows an error page and never redirects to an unregistered redirect URI (no open redirect)', async () => {
    const { url } = authorizationUrl(demo, { redirect_uri: 'https://evil.example.com/callback' });
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('not registered');
  });

  it('names the app on the error page, styled like sign-in, with a way back to the app’s own site', async () => {
    const { client } = await demo.switchboard.oauth!.registerClient({
      name: 'Salon bot',
      type: 'public',
      redirectUris: ['https://salon.example.com/callback'],
      scopes: ['crm.clients.read'],
    });
    const { url } = authorizationUrl(demo, {
      client_id: client.id,
      redirect_uri: 'https://evil.example.com/callback',
    });
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain('<strong>Salon bot</strong>');
    expect(page).toContain('href="https://salon.example.com"');
    expect(page).toMatch(/<link rel="stylesheet" href="\/oauth\/look-\w+\.css">/);
    // An unknown app is not named, and nothing links anywhere.
    const unknown = await (await fetch(authorizationUrl(demo, { client_id: 'oac_nobody' }).url)).text();
    expect(unknown).toContain('the app you came from');
    expect(unknown).not.toContain('<a ');
  });

  it("shows an app's name as text on the sign-in and error pages, whatever it holds", async () => {
    const name = '<img src=x onerror="alert(1)"> & Co';
    const { client } = await demo.switchboard.oauth!.registerClient({
      name,
      type: 'public',
      redirectUris: ['https://markup.example.com/callback'],
      scopes: ['crm.clients.read'],
    });
    const params = { client_id: client.id, scope: 'crm.clients.read' };
    const signIn = await openConsentPage(
      authorizationUrl(demo, { ...params, redirect_uri: 'https://markup.example.com/callback' }).url,
    );
    const error = await (
      await fetch(
        authorizationUrl(demo, { client_id: client.id, redirect_uri: 'https://evil.example.com/cb' }).url,
      )
    ).text();
    expect(signIn.response.status).toBe(200);
    for (const page of [signIn.html, error]) {
      expect(page).not.toContain('<img');
      expect(page).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; Co');
    }
  });

  it('shows an error page for an unknown client', async () => {
    const response = await fetch(authorizationUrl(demo, { client_id: 'oac_nobody' }).url, {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('accepts any port on a registered loopback redirect URI for a public (native) client (RFC 8252 §7.3)', async () => {
    const page = await openConsentPage(
      authorizationUrl(demo, {
        client_id: demo.publicClient.id,
        redirect_uri: 'http://127.0.0.1:9999/callback',
      }).url,
    );
    expect(page.response.status).toBe(200);
  });

  it("matches a confidential (web) client's loopback redirect URI exactly: another port is an error page", async () => {
    const { url } = authorizationUrl(demo, { redirect_uri: 'http://127.0.0.1:9999/callback' });
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
  });

  it('refuses to register a redirect URI with a fragment, even an empty one', async () => {
    for (const uri of ['https://app.example.com/cb#x', 'https://app.example.com/cb#']) {
      const input = { name: 'Frag', type: 'confidential' as const, redirectUris: [uri], scopes: [] };
      const refused = await demo.switchboard.oauth!.registerClient(input).catch((error: unknown) => error);
      expect(JSON.stringify((refused as { details?: unknown }).details)).toContain(
        'must not contain a fragment',
      );
    }
  });

  it('shows an error page for a redirect URI with a fragment, and redirects nowhere (RFC 6749 §3.1.2)', async () => {
    for (const client_id of [demo.confidential.id, demo.publicClient.id]) {
      for (const redirect_uri of [`${REDIRECT}#f`, `${REDIRECT}#`]) {
        const response = await fetch(authorizationUrl(demo, { client_id, redirect_uri }).url, {
          redirect: 'manual',
        });
        expect(response.status).toBe(400);
        expect(response.headers.get('location')).toBeNull();
      }
    }
  });

  it('refuses a public client without PKCE, redirecting with error, state and iss', async () => {
    const params = await errorRedirect({
      client_id: demo.publicClient.id,
      code_challenge: null,
      code_challenge_method: null,
    });
    expect(params.get('error')).toBe('invalid_request');
  });

  it('refuses the plain PKCE method', async () => {
    const params = await errorRedirect({ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' });
    expect(params.get('error')).toBe('invalid_request');
  });

  it('refuses a challenge without a method (it would default to plain)', async () => {
    const params = await errorRedirect({ code_challenge_method: null });
    expect(params.get('error')).toBe('invalid_request');
  });

  it('refuses the implicit flow (response_type=token)', async () => {
    const params = await errorRedirect({ response_type: 'token' });
    expect(params.get('error')).toBe('unsupported_response_type');
  });

  it('refuses a scope the client may not have', async () => {
    const params = await errorRedirect({ scope: 'admin.oauth.write' });
    expect(params.get('error')).toBe('invalid_scope');
  });

  it('refuses a repeated parameter', async () => {
    const { url } = authorizationUrl(demo);
    url.searchParams.append('scope', 'crm.orders.read');
    const response = await fetch(url, { redirect: 'manual' });
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('asks to sign in first, then lists the requested scopes in words; neither page can be framed', async () => {
    const page = await openConsentPage(authorizationUrl(demo).url);
    expect(page.signIn).toBe(true);
    expect(page.html).toContain('Sign in to continue to <strong>Support bot</strong>');
    expect(page.html).toMatch(/<label for="username">/);
    expect(page.scopes).toEqual([]);
    const consent = await signInOnPage(page, demo.ada, demo.base);
    expect(consent.response.status).toBe(200);
    expect(consent.signIn).toBe(false);
    expect(consent.html).toContain(`Signed in as <strong>${demo.ada.email}</strong>`);
    expect(consent.html).toContain(clients.scopes.describe.read);
    expect(consent.html).toContain(orders.scopes.describe.read);
    expect(consent.scopes).toEqual(['crm.clients.read', 'crm.orders.read']);
    for (const { response } of [page, consent]) {
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('takes the proof of sign-in only in the browser and for the app it was made for, and not after 10 minutes', async () => {
    const consent = await signInOnPage(
      await openConsentPage(authorizationUrl(demo).url),
      demo.ada,
      demo.base,
    );
    const approve = (page: typeof consent) => submitConsent(page, {}, demo.base);
    // Another browser (its own CSRF cookie and token) with the proof copied over.
    const other = await openConsentPage(authorizationUrl(demo).url);
    const copied = { ...other, hidden: { ...other.hidden, sign_in_proof: consent.hidden.sign_in_proof! } };
    expect((await approve({ ...copied, scopes: consent.scopes })).status).toBe(401);
    // The same browser, another app.
    const otherApp = { ...consent, hidden: { ...consent.hidden, client_id: demo.publicClient.id } };
    expect((await approve(otherApp)).status).toBe(401);
    // A forged proof.
    const forged = {
      ...consent,
      hidden: { ...consent.hidden, sign_in_proof: `${consent.hidden.sign_in_proof}x` },
    };
    const refused = await approve(forged);
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('Your sign-in has expired');
    // Too late.
    demo.clock.advance(10 * 60_000 + 1);
    expect((await approve(consent)).status).toBe(401);
  });

  it('lets the user refuse from the sign-in step without signing in', async () => {
    const { url, state } = authorizationUrl(demo);
    const page = await openConsentPage(url);
    const form = new URLSearchParams(page.hidden);
    form.set('decision', 'refuse');
    const response = await fetch(`${demo.base}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
      body: form,
    });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe(state);
  });

  it('still takes e-mail and password with the decision in one form (a host page of one step)', async () => {
    const page = await openConsentPage(authorizationUrl(demo).url);
    const form = new URLSearchParams(page.hidden);
    form.set('username', demo.ada.email);
    form.set('password', demo.ada.password);
    form.set('decision', 'approve');
    form.append('grant_scope', 'crm.clients.read');
    const response = await fetch(`${demo.base}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
      body: form,
    });
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get('location')!).searchParams.get('code')).toMatch(/^sbac_/);
  });

  it('refuses a consent post without the CSRF cookie', async () => {
    const page = await openConsentPage(authorizationUrl(demo).url);
    const response = await submitConsent(
      { ...page, cookie: '' },
      { username: demo.ada.email, password: demo.ada.password },
      demo.base,
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('location')).toBeNull();
  });

  it('refuses a consent post with a forged CSRF token', async () => {
    const page = await openConsentPage(authorizationUrl(demo).url);
    const forged = { ...page, hidden: { ...page.hidden, csrf: 'forged' } };
    const response = await submitConsent(
      forged,
      { username: demo.ada.email, password: demo.ada.password },
      demo.base,
    );
    expect(response.status).toBe(403);
  });

  it('shows the page again, with an alert, for a wrong password', async () => {
    const page = await openConsentPage(authorizationUrl(demo).url);
    const response = await submitConsent(page, { username: demo.ada.email, password: 'wrong' }, demo.base);
    expect(response.status).toBe(401);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('role="alert"');
  });

  it('refuses a username after 5 wrong passwords, even with the right one, saying when to try again', async () => {
    const attempt = async (password: string) => {
      const page = await openConsentPage(authorizationUrl(demo).url);
      return submitConsent(page, { username: demo.grace.email, password }, demo.base);
    };
    for (let i = 0; i < 5; i++) expect((await attempt('guess')).status).toBe(401);
    const locked = await attempt(demo.grace.password);
    expect(locked.status).toBe(429);
    // 5 per 15 minutes: one more attempt every 3 minutes.
    expect(locked.headers.get('retry-after')).toBe('180');
    expect(await locked.text()).toMatch(
      /role="alert"[^>]*>Too many wrong passwords for this account\. Try again in 3 minutes\./,
    );
    demo.clock.advance(3 * 60_000);
    expect((await attempt(demo.grace.password)).status).toBe(303);
  });

  it('sends access_denied with state and iss when the user refuses', async () => {
    const { url, state } = authorizationUrl(demo);
    const page = await openConsentPage(url);
    const response = await submitConsent(page, { decision: 'refuse' }, demo.base);
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('iss')).toBe(demo.base);
  });

  it('lets the user approve fewer scopes than asked', async () => {
    const { url, verifier } = authorizationUrl(demo);
    const callback = await authorizeThroughPage(url, demo.ada, demo.base, { scopes: ['crm.clients.read'] });
    const response = await fetch(`${demo.base}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${demo.confidential.id}:${demo.confidential.secret}`)}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }),
    });
    expect(((await response.json()) as { scope: string }).scope).toBe('crm.clients.read');
  });

  it('redirects with a code, state and iss, as a 303 after the form post', async () => {
    const { url, state } = authorizationUrl(demo);
    const callback = await authorizeThroughPage(url, demo.ada, demo.base);
    expect(callback.searchParams.get('code')).toMatch(/^sbac_[a-z2-7]{52}$/);
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(demo.base);
  });
});

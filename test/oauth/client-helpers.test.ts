/** The client helpers for calling other OAuth systems, against this authorization server over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthClient, type OAuthClient, type TokenSet } from '../../src/oauth/index.js';
import { authorizeThroughPage, type Demo, get, REDIRECT, startDemo } from './support.js';

describe('OAuth client helpers', () => {
  let demo: Demo;
  let client: OAuthClient;
  beforeAll(async () => {
    demo = await startDemo();
    client = createOAuthClient({
      authorizationEndpoint: `${demo.base}/oauth/authorize`,
      tokenEndpoint: `${demo.base}/oauth/token`,
      revocationEndpoint: `${demo.base}/oauth/revoke`,
      clientId: demo.confidential.id,
      clientSecret: demo.confidential.secret,
      redirectUri: REDIRECT,
      issuer: demo.base,
      clock: demo.clock,
    });
  });
  afterAll(() => demo.close());

  const signIn = async (): Promise<TokenSet> => {
    const pending = await client.createAuthorizationRequest({ scopes: ['crm.clients.read'] });
    const callback = await authorizeThroughPage(pending.url, demo.ada, demo.base);
    return client.exchangeCode(client.handleCallback(callback, pending.state), pending.codeVerifier);
  };

  it('builds an authorization URL with random state and an S256 challenge', async () => {
    const a = await client.createAuthorizationRequest({ scopes: ['crm.clients.read'] });
    const b = await client.createAuthorizationRequest({ scopes: ['crm.clients.read'] });
    expect(a.state).not.toBe(b.state);
    expect(a.url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(a.url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.url.searchParams.get('code_challenge')).not.toBe(a.codeVerifier);
  });

  it('exchanges the code with the client secret and gets working tokens', async () => {
    const tokens = await signIn();
    expect(tokens.expiresAt).toBe(demo.clock.now() + 3_600_000);
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, tokens.accessToken)).status).toBe(200);
  });

  it('refuses a callback whose state does not match (CSRF)', async () => {
    const pending = await client.createAuthorizationRequest({ scopes: ['crm.clients.read'] });
    const callback = await authorizeThroughPage(pending.url, demo.ada, demo.base);
    const other = await client.createAuthorizationRequest({ scopes: ['crm.clients.read'] });
    expect(() => client.handleCallback(callback, other.state)).toThrow(/state does not match/);
  });

  it('turns an error callback into an error', () => {
    expect(() =>
      client.handleCallback(`${REDIRECT}?error=access_denied&state=s&iss=${demo.base}`, 's'),
    ).toThrow(/access_denied/);
  });

  it('refuses a callback from another issuer (RFC 9207)', () => {
    expect(() =>
      client.handleCallback(`${REDIRECT}?code=c&state=s&iss=https://evil.example.com`, 's'),
    ).toThrow(/another issuer/);
  });

  it('refreshes with rotation, storing the new refresh token before resolving', async () => {
    const tokens = await signIn();
    let stored: TokenSet | undefined;
    const next = await client.refresh(tokens.refreshToken!, {
      store: async (set) => {
        stored = set;
      },
    });
    expect(stored).toEqual(next);
    expect(next.refreshToken).not.toBe(tokens.refreshToken);
    demo.clock.advance(60_000);
    await expect(client.refresh(tokens.refreshToken!, { store: async () => {} })).rejects.toThrow(
      /invalid_grant/,
    );
  });

  it('does not report a refresh as done when storing the rotated token fails', async () => {
    const tokens = await signIn();
    await expect(
      client.refresh(tokens.refreshToken!, {
        store: async () => {
          throw new Error('database down');
        },
      }),
    ).rejects.toThrow('database down');
  });

  it('revokes a token', async () => {
    const tokens = await signIn();
    await client.revoke(tokens.refreshToken!, { hint: 'refresh_token' });
    expect((await get(demo, `/api/v1/clients/${demo.ada.id}`, tokens.accessToken)).status).toBe(401);
  });
});

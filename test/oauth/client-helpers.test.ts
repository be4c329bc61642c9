/** The client helpers for calling other OAuth systems, against this authorization server over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyRing,
  createOAuthClient,
  generateSigningKey,
  type OAuthClient,
  type OAuthClientConfig,
  type TokenSet,
} from '../../src/oauth/index.js';
import { authorizeThroughPage, type Demo, get, REDIRECT, startDemo } from './support.js';

describe('OAuth client helpers', () => {
  let demo: Demo;
  let client: OAuthClient;
  const configFor = (demo: Demo): OAuthClientConfig => ({
    authorizationEndpoint: `${demo.base}/oauth/authorize`,
    tokenEndpoint: `${demo.base}/oauth/token`,
    revocationEndpoint: `${demo.base}/oauth/revoke`,
    clientId: demo.confidential.id,
    clientSecret: demo.confidential.secret,
    redirectUri: REDIRECT,
    issuer: demo.base,
    clock: demo.clock,
  });
  beforeAll(async () => {
    demo = await startDemo();
    client = createOAuthClient(configFor(demo));
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

  describe('ID tokens', () => {
    const OPENID = ['openid', 'crm.clients.read'];

    /** Signs Ada in with `helper` and exchanges the code with the nonce the request sent. */
    const signInWith = async (helper: OAuthClient): Promise<TokenSet> => {
      const pending = await helper.createAuthorizationRequest({ scopes: OPENID });
      const callback = await authorizeThroughPage(pending.url, demo.ada, demo.base);
      return helper.exchangeCode(helper.handleCallback(callback, pending.state), pending);
    };

    const claimsOf = (jwt: string): Record<string, unknown> =>
      JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
    const headerOf = (jwt: string): Record<string, unknown> =>
      JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8'));

    /**
     * The host's fetch, going to the server over HTTP; `change` replaces the `id_token` of token
     * responses, as a compromised network hop or a mixed-up server would.
     */
    const changingIdToken =
      (change: (idToken: string) => string | Promise<string>): typeof fetch =>
      async (input, init) => {
        const response = await fetch(input, init);
        const url = new URL(input instanceof Request ? input.url : String(input));
        if (url.pathname !== '/oauth/token' || !response.ok) return response;
        const body = (await response.json()) as Record<string, unknown>;
        if (typeof body.id_token === 'string') body.id_token = await change(body.id_token);
        return new Response(JSON.stringify(body), {
          status: response.status,
          headers: { 'content-type': 'application/json' },
        });
      };

    /** Re-signs the server's ID token with the server's own key after changing some claims. */
    const resigned =
      (changes: Record<string, unknown>) =>
      (idToken: string): Promise<string> => {
        const claims: Record<string, unknown> = { ...claimsOf(idToken), ...changes };
        for (const [name, value] of Object.entries(changes)) if (value === undefined) delete claims[name];
        return demo.switchboard.oauth!.keys!.sign(claims);
      };

    const helperWith = (overrides: Partial<OAuthClientConfig>): OAuthClient =>
      createOAuthClient({ ...configFor(demo), ...overrides });

    it('returns the claims of a verified ID token, with the nonce it sent', async () => {
      const pending = await client.createAuthorizationRequest({ scopes: OPENID });
      expect(pending.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(pending.url.searchParams.get('nonce')).toBe(pending.nonce);
      const callback = await authorizeThroughPage(pending.url, demo.ada, demo.base);
      const tokens = await client.exchangeCode(client.handleCallback(callback, pending.state), pending);
      expect(tokens.idToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(tokens.idTokenClaims).toMatchObject({
        iss: demo.base,
        sub: demo.ada.id,
        aud: demo.confidential.id,
        nonce: pending.nonce,
        iat: Math.floor(demo.clock.now() / 1000),
      });
    });

    it('sends no nonce and returns no claims without the openid scope', async () => {
      const pending = await client.createAuthorizationRequest({ scopes: ['crm.clients.read'] });
      expect(pending.nonce).toBeNull();
      expect(pending.url.searchParams.has('nonce')).toBe(false);
      const callback = await authorizeThroughPage(pending.url, demo.ada, demo.base);
      const tokens = await client.exchangeCode(client.handleCallback(callback, pending.state), pending);
      expect(tokens.idToken).toBeNull();
      expect(tokens.idTokenClaims).toBeNull();
    });

    it("reads the issuer's metadata and JWKS through the host's fetch, once", async () => {
      const seen: string[] = [];
      const helper = helperWith({
        fetch: (input, init) => {
          seen.push(String(input instanceof Request ? input.url : input));
          return fetch(input, init);
        },
      });
      await signInWith(helper);
      await signInWith(helper);
      expect(seen.filter((url) => url === `${demo.base}/.well-known/openid-configuration`)).toHaveLength(1);
      expect(seen.filter((url) => url === `${demo.base}/oauth/jwks`)).toHaveLength(1);
    });

    it('refuses an ID token whose payload was changed after signing', async () => {
      const helper = helperWith({
        fetch: changingIdToken((idToken) => {
          const [header, , signature] = idToken.split('.');
          const payload = Buffer.from(JSON.stringify({ ...claimsOf(idToken), sub: demo.grace.id })).toString(
            'base64url',
          );
          return `${header}.${payload}.${signature}`;
        }),
      });
      await expect(signInWith(helper)).rejects.toThrow(/ID token was refused: .*signature/);
    });

    it('refuses an ID token signed with a key the issuer does not publish', async () => {
      const helper = helperWith({
        fetch: changingIdToken(async (idToken) => {
          // The same `kid` as the server's key, so only the signature can tell them apart.
          const kid = String(headerOf(idToken).kid);
          const impostor = createKeyRing({ keys: [await generateSigningKey({ kid })] });
          return impostor.sign(claimsOf(idToken));
        }),
      });
      await expect(signInWith(helper)).rejects.toThrow(/ID token was refused: .*signature/);
    });

    it('refuses an ID token issued to another client (aud)', async () => {
      const helper = helperWith({ fetch: changingIdToken(resigned({ aud: demo.publicClient.id })) });
      await expect(signInWith(helper)).rejects.toMatchObject({
        name: 'SwitchboardError',
        code: 'forbidden',
        message: expect.stringMatching(/ID token was refused: .*audience/),
        details: [expect.objectContaining({ field: 'id_token', code: 'audience_mismatch' })],
      });
    });

    it('refuses an ID token from another issuer (iss)', async () => {
      const helper = helperWith({
        fetch: changingIdToken(resigned({ iss: 'https://evil.example.com' })),
      });
      await expect(signInWith(helper)).rejects.toThrow(/ID token was refused: .*issuer/);
    });

    it('refuses an ID token without iat', async () => {
      const helper = helperWith({ fetch: changingIdToken(resigned({ iat: undefined })) });
      await expect(signInWith(helper)).rejects.toThrow(/ID token was refused: .*iat/);
    });

    it('refuses an ID token whose nonce is not the one this session sent', async () => {
      const pending = await client.createAuthorizationRequest({ scopes: OPENID });
      const other = await client.createAuthorizationRequest({ scopes: OPENID });
      const callback = await authorizeThroughPage(pending.url, demo.ada, demo.base);
      const code = client.handleCallback(callback, pending.state);
      await expect(
        client.exchangeCode(code, { codeVerifier: pending.codeVerifier, nonce: other.nonce }),
      ).rejects.toThrow(/ID token was refused: .*nonce/);
    });

    it('refuses an ID token with a nonce when the request sent none', async () => {
      const pending = await client.createAuthorizationRequest({ scopes: OPENID });
      const callback = await authorizeThroughPage(pending.url, demo.ada, demo.base);
      const code = client.handleCallback(callback, pending.state);
      await expect(client.exchangeCode(code, pending.codeVerifier)).rejects.toThrow(
        /ID token was refused: .*nonce/,
      );
    });

    it('refuses an ID token that has expired by the time it is checked', async () => {
      // The server issues a 5-minute token; the answer then takes 6 minutes to arrive (manual clock).
      const helper = helperWith({
        fetch: changingIdToken((idToken) => {
          demo.clock.advance(6 * 60_000);
          return idToken;
        }),
      });
      await expect(signInWith(helper)).rejects.toThrow(/ID token was refused: .*expired/);
    });

    it('refuses to return an ID token it cannot check (no issuer configured)', async () => {
      const helper = helperWith({ issuer: undefined });
      await expect(signInWith(helper)).rejects.toThrow(/issuer/);
    });
  });
});

/**
 * The chatbot app's view, driven by oauth4webapi (a strict, certified OAuth client) over real HTTP on
 * loopback: discovery, PKCE through the sign-in page, code exchange, API calls, refresh rotation,
 * reuse detection, revocation and introspection.
 */
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_USER_SCOPES, authorizeThroughPage, type Demo, REDIRECT, startDemo } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

describe('OAuth end to end with oauth4webapi', () => {
  let demo: Demo;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let clientAuth: oauth.ClientAuth;

  beforeAll(async () => {
    demo = await startDemo();
    const issuer = new URL(demo.base);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    client = { client_id: demo.confidential.id };
    clientAuth = oauth.ClientSecretBasic(demo.confidential.secret);
  });
  afterAll(() => demo.close());

  /** The authorization code flow as an app runs it; resolves with the token response. */
  async function signIn(
    options: { scopes?: string[]; user?: Demo['ada']; nonce?: string } = {},
  ): Promise<oauth.TokenEndpointResponse> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', REDIRECT);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', (options.scopes ?? ALL_USER_SCOPES).join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    if (options.nonce) url.searchParams.set('nonce', options.nonce);
    const callback = await authorizeThroughPage(url, options.user ?? demo.ada, demo.base);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT,
      verifier,
      insecure,
    );
    return oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: options.nonce ?? oauth.expectNoNonce,
      requireIdToken: options.nonce !== undefined,
    });
  }

  const refresh = async (token: string, scope?: string) => {
    const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, token, {
      ...insecure,
      ...(scope ? { additionalParameters: { scope } } : {}),
    });
    return oauth.processRefreshTokenResponse(as, client, response);
  };

  /** An API call as oauth4webapi makes it; a 401/403 challenge becomes its status and parsed challenge. */
  const api = async (token: string, path: string) => {
    try {
      const url = new URL(`${demo.base}${path}`);
      return await oauth.protectedResourceRequest(token, 'GET', url, undefined, undefined, insecure);
    } catch (error) {
      if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
      return { status: error.status, challenge: error.cause[0], json: async () => null };
    }
  };

  it('publishes RFC 8414 metadata that a strict client accepts', () => {
    expect(as.issuer).toBe(demo.base);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.grant_types_supported).not.toContain('implicit');
    expect(as.grant_types_supported).not.toContain('password');
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('signs in through the page with PKCE and calls the API with the token', async () => {
    const tokens = await signIn();
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe(ALL_USER_SCOPES.join(' '));
    const response = await api(tokens.access_token, `/api/v1/clients/${demo.ada.id}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: demo.ada.id, email: demo.ada.email });
    const orders = await api(tokens.access_token, `/api/v1/users/${demo.ada.id}/orders`);
    expect(orders.status).toBe(200);
    expect(JSON.stringify(await orders.json())).toContain(demo.ada.orderId);
  });

  it('issues an ES256 ID token with iss, sub, aud, exp, iat and nonce, verifiable with the JWKS', async () => {
    const nonce = oauth.generateRandomNonce();
    const tokens = await signIn({ scopes: ['openid', 'crm.clients.read'], nonce });
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(claims).toMatchObject({ iss: demo.base, sub: demo.ada.id, aud: demo.confidential.id, nonce });
    expect(claims.exp).toBeGreaterThan(claims.iat);
    const [header, payload, signature] = tokens.id_token!.split('.') as [string, string, string];
    const jwks = (await (await fetch(as.jwks_uri!)).json()) as { keys: (JsonWebKey & { kid: string })[] };
    const kid = JSON.parse(atob(header.replace(/-/g, '+').replace(/_/g, '/'))).kid;
    const jwk = jwks.keys.find((k) => k.kid === kid)!;
    const key = await crypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, [
      'verify',
    ]);
    const valid = await crypto.subtle.verify(
      { name: 'ECDSA', hash: 'SHA-256' },
      key,
      Buffer.from(signature, 'base64url'),
      new TextEncoder().encode(`${header}.${payload}`),
    );
    expect(valid).toBe(true);
  });

  it('rotates the refresh token on every use and the new access token works', async () => {
    const first = await signIn();
    const second = await refresh(first.refresh_token!);
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await api(second.access_token, `/api/v1/clients/${demo.ada.id}`)).status).toBe(200);
    const third = await refresh(second.refresh_token!);
    expect(third.refresh_token).not.toBe(second.refresh_token);
  });

  it('revokes the whole family when a rotated-out refresh token comes back', async () => {
    const first = await signIn();
    const second = await refresh(first.refresh_token!);
    demo.clock.advance(60_000); // past the grace window
    await expect(refresh(first.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The legitimate holder's newer tokens are gone too: the family is revoked.
    expect((await api(second.access_token, `/api/v1/clients/${demo.ada.id}`)).status).toBe(401);
    await expect(refresh(second.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('lets two concurrent refreshes with the same token both succeed within the grace window', async () => {
    const first = await signIn();
    const [a, b] = await Promise.all([refresh(first.refresh_token!), refresh(first.refresh_token!)]);
    expect(a.access_token).not.toBe(b.access_token);
    expect((await api(a.access_token, `/api/v1/clients/${demo.ada.id}`)).status).toBe(200);
    expect((await api(b.access_token, `/api/v1/clients/${demo.ada.id}`)).status).toBe(200);
  });

  it('narrows scopes on refresh', async () => {
    const first = await signIn();
    const narrowed = await refresh(first.refresh_token!, 'crm.clients.read');
    expect(narrowed.scope).toBe('crm.clients.read');
    expect((await api(narrowed.access_token, `/api/v1/users/${demo.ada.id}/orders`)).status).toBe(403);
  });

  it('revokes a refresh token (RFC 7009) and with it the access tokens of its grant', async () => {
    const tokens = await signIn();
    const response = await oauth.revocationRequest(as, client, clientAuth, tokens.refresh_token!, insecure);
    await oauth.processRevocationResponse(response);
    expect((await api(tokens.access_token, `/api/v1/clients/${demo.ada.id}`)).status).toBe(401);
    await expect(refresh(tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('revokes an access token on its own', async () => {
    const tokens = await signIn();
    const response = await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, {
      ...insecure,
      additionalParameters: { token_type_hint: 'access_token' },
    });
    await oauth.processRevocationResponse(response);
    expect((await api(tokens.access_token, `/api/v1/clients/${demo.ada.id}`)).status).toBe(401);
    expect((await refresh(tokens.refresh_token!)).access_token).toBeDefined();
  });

  it('introspects (RFC 7662): active with scope and subject, inactive once revoked', async () => {
    const tokens = await signIn();
    const introspect = async () =>
      oauth.processIntrospectionResponse(
        as,
        client,
        await oauth.introspectionRequest(as, client, clientAuth, tokens.access_token, insecure),
      );
    expect(await introspect()).toMatchObject({
      active: true,
      client_id: demo.confidential.id,
      sub: demo.ada.id,
      scope: ALL_USER_SCOPES.join(' '),
      token_type: 'Bearer',
    });
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, insecure),
    );
    expect(await introspect()).toEqual({ active: false });
  });

  it('lets a public client sign in with PKCE and no secret', async () => {
    const publicClient = { client_id: demo.publicClient.id };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      client_id: publicClient.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'chat.messages.read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const callback = await authorizeThroughPage(url, demo.grace, demo.base);
    const params = oauth.validateAuthResponse(as, publicClient, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      publicClient,
      oauth.None(),
      params,
      REDIRECT,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, publicClient, response);
    expect(tokens.scope).toBe('chat.messages.read');
  });

  it('issues client-credentials tokens to a confidential machine client, acting for no user', async () => {
    const machine = { client_id: demo.machine.id };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      machine,
      oauth.ClientSecretPost(demo.machine.secret),
      new URLSearchParams({ scope: 'crm.clients.read' }),
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, machine, response);
    expect(tokens.refresh_token).toBeUndefined();
    const list = await api(tokens.access_token, '/api/v1/clients');
    expect(list.status).toBe(200);
  });
});

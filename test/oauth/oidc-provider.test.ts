/**
 * The client helpers against a server that is not ours: node-oidc-provider, the OpenID-certified
 * authorization server, on a loopback port in this process. The end-user's browser is played by
 * `fetch` following redirects by hand and carrying cookies; the provider's login and consent
 * interactions are finished by a small route on the same HTTP server, as an app embedding it would.
 * Every token request goes through the helpers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Interaction, type InteractionResults } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOAuthClient,
  type OAuthClient,
  type OAuthClientConfig,
  type TokenSet,
} from '../../src/oauth/index.js';
import { type ManualClock, manualClock } from '../support/clock.js';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const ACCOUNT_ID = 'ada';
/** Refresh tokens are issued for `offline_access`, which OIDC Core §11 honours only with `prompt=consent`. */
const SCOPES = ['openid', 'offline_access'];
const AUTHORIZE = { scopes: SCOPES, extra: { prompt: 'consent' } };

/** The provider rotates this client's refresh tokens; its secret needs form-encoding in HTTP Basic. */
const ROTATING = { id: 'support-bot', secret: 'a secret: with spaces, +plus, %percent & /slash' };
/** The provider keeps this client's refresh token across refreshes (its default for confidential clients). */
const STEADY = { id: 'nightly-report', secret: 'steady-secret-0123456789' };

/** What the provider's discovery document (OIDC Discovery §3, RFC 8414 §2) says, in the fields used here. */
interface ProviderMetadata {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly revocation_endpoint: string;
  readonly userinfo_endpoint: string;
  readonly jwks_uri: string;
  readonly code_challenge_methods_supported: readonly string[];
  readonly token_endpoint_auth_methods_supported: readonly string[];
  readonly authorization_response_iss_parameter_supported: boolean;
  readonly grant_types_supported: readonly string[];
}

interface OpenIdProvider {
  readonly issuer: string;
  readonly metadata: ProviderMetadata;
  close(): Promise<void>;
}

/** oidc-provider on a loopback port, with one account, two confidential clients and an interaction route. */
async function startProvider(): Promise<OpenIdProvider> {
  // The issuer names the port, so the server listens before the provider exists.
  let handle = (_req: IncomingMessage, res: ServerResponse): void => {
    res.statusCode = 503;
    res.end();
  };
  const server: Server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'es256-test' };
  const provider = new Provider(issuer, {
    clients: [ROTATING, STEADY].map(({ id, secret }) => ({
      client_id: id,
      client_secret: secret,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    })),
    jwks: { keys: [signingKey] },
    cookies: { keys: [crypto.randomUUID()] },
    findAccount: async (_ctx, id) =>
      id === ACCOUNT_ID ? { accountId: id, claims: () => ({ sub: id, name: 'Ada Lovelace' }) } : undefined,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
    },
    pkce: { required: () => true },
    rotateRefreshToken: (ctx) => ctx.oidc.client?.clientId === ROTATING.id,
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 86_400,
      Grant: 86_400,
      Interaction: 600,
      Session: 86_400,
    },
  });

  const providerCallback = provider.callback();
  handle = (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return providerCallback(req, res);
    interact(provider, req, res).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  };

  const response = await fetch(`${issuer}/.well-known/openid-configuration`);
  const metadata = (await response.json()) as ProviderMetadata;
  return {
    issuer,
    metadata,
    close: () => new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

/**
 * The app's login and consent pages: a GET shows a form, its POST finishes the interaction. Login
 * signs the fixed account in; consent grants what the provider says is missing.
 */
async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'GET') {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<form method="post"><button name="prompt" value="${details.prompt.name}">Allow</button></form>`);
    return;
  }
  for await (const _ of req); // the form's body says nothing the route needs
  const result: InteractionResults =
    details.prompt.name === 'login'
      ? { login: { accountId: ACCOUNT_ID } }
      : { consent: { grantId: await grantMissing(provider, details) } };
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

async function grantMissing(provider: Provider, details: Interaction): Promise<string> {
  const accountId = details.session?.accountId ?? ACCOUNT_ID;
  const grant =
    (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
    new provider.Grant({ accountId, clientId: details.params.client_id });
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes = {} } = details.prompt.details;
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missingResourceScopes)) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}

/**
 * A user agent with its own cookie jar: follows the authorization URL through the provider's
 * redirects, submits each interaction form, and stops at the redirect back to the app.
 */
async function browse(start: URL): Promise<URL> {
  const jar = new Map<string, { value: string; path: string }>();
  const cookiesFor = (url: URL): string =>
    [...jar]
      .filter(([, c]) => url.pathname === c.path || url.pathname.startsWith(c.path.replace(/\/?$/, '/')))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  let url = start;
  let init: RequestInit = {};
  for (let hop = 0; hop < 12; hop++) {
    const cookie = cookiesFor(url);
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const name = pair.slice(0, pair.indexOf('='));
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const expires = attributes.find((a) => /^expires=/i.test(a))?.slice(8);
      if (expires !== undefined && Date.parse(expires) <= Date.now()) jar.delete(name);
      else jar.set(name, { value: pair.slice(name.length + 1), path });
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      if (url.href.startsWith(REDIRECT_URI)) return url;
      init = {};
    } else if (response.status === 200 && url.pathname.startsWith('/interaction/')) {
      const prompt = /value="([^"]+)"/.exec(await response.text())?.[1] ?? '';
      init = {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ prompt }).toString(),
      };
    } else {
      throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
    }
  }
  throw new Error('Too many redirects.');
}

describe('OAuth client helpers against oidc-provider', () => {
  let op: OpenIdProvider;
  let clock: ManualClock;
  let client: OAuthClient;
  const helperFor = (
    registered: { id: string; secret: string },
    overrides: Partial<OAuthClientConfig> = {},
  ): OAuthClient =>
    createOAuthClient({
      authorizationEndpoint: op.metadata.authorization_endpoint,
      tokenEndpoint: op.metadata.token_endpoint,
      revocationEndpoint: op.metadata.revocation_endpoint,
      clientId: registered.id,
      clientSecret: registered.secret,
      redirectUri: REDIRECT_URI,
      issuer: op.issuer,
      clock,
      ...overrides,
    });

  beforeAll(async () => {
    op = await startProvider();
    clock = manualClock(Date.now());
    client = helperFor(ROTATING);
  });
  afterAll(() => op?.close());

  /** Signs the account in through the provider and exchanges the code, as an app would. */
  const signIn = async (helper = client): Promise<TokenSet> => {
    const pending = await helper.createAuthorizationRequest(AUTHORIZE);
    const code = helper.handleCallback(await browse(pending.url), pending.state);
    return helper.exchangeCode(code, pending);
  };

  const userinfo = (accessToken: string): Promise<Response> =>
    fetch(op.metadata.userinfo_endpoint, { headers: { authorization: `Bearer ${accessToken}` } });

  /** The SwitchboardError the helpers throw for an OAuth error response (RFC 6749 §5.2). */
  const oauthError = (code: string): object => ({
    name: 'SwitchboardError',
    code: 'bad_request',
    details: [expect.objectContaining({ field: 'error', code })],
  });

  it('the provider advertises what the helpers rely on: S256 PKCE, client_secret_basic, RFC 9207 iss', () => {
    expect(op.metadata.issuer).toBe(op.issuer);
    expect(op.metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(op.metadata.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
    expect(op.metadata.authorization_response_iss_parameter_supported).toBe(true);
    expect(op.metadata.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token']),
    );
  });

  it('the authorization URL is accepted: the callback carries a code, the state sent and the issuer', async () => {
    const pending = await client.createAuthorizationRequest(AUTHORIZE);
    const callback = await browse(pending.url);
    expect(callback.searchParams.get('state')).toBe(pending.state);
    expect(callback.searchParams.get('iss')).toBe(op.issuer);
    expect(client.handleCallback(callback, pending.state)).toBe(callback.searchParams.get('code'));
  });

  it('a callback whose state is not the one this session sent is refused (CSRF)', async () => {
    const pending = await client.createAuthorizationRequest(AUTHORIZE);
    const other = await client.createAuthorizationRequest(AUTHORIZE);
    const callback = await browse(pending.url);
    expect(() => client.handleCallback(callback, other.state)).toThrow(
      expect.objectContaining({ code: 'forbidden', details: [expect.objectContaining({ field: 'state' })] }),
    );
  });

  it('a callback naming this provider is refused by a client configured for another issuer (RFC 9207)', async () => {
    const pending = await client.createAuthorizationRequest(AUTHORIZE);
    const callback = await browse(pending.url);
    const confused = helperFor(ROTATING, { issuer: 'https://login.example.com' });
    expect(() => confused.handleCallback(callback, pending.state)).toThrow(
      expect.objectContaining({ code: 'forbidden', details: [expect.objectContaining({ field: 'iss' })] }),
    );
  });

  it("the provider's error redirect becomes an error with its OAuth code (PKCE is required)", async () => {
    const pending = await client.createAuthorizationRequest(AUTHORIZE);
    pending.url.searchParams.delete('code_challenge');
    pending.url.searchParams.delete('code_challenge_method');
    const callback = await browse(pending.url);
    expect(() => client.handleCallback(callback, pending.state)).toThrow(
      expect.objectContaining(oauthError('invalid_request')),
    );
  });

  it('the code exchange returns an access token, a refresh token, its expiry and a verified ID token', async () => {
    const pending = await client.createAuthorizationRequest(AUTHORIZE);
    const code = client.handleCallback(await browse(pending.url), pending.state);
    const tokens = await client.exchangeCode(code, pending);
    expect(tokens).toMatchObject({
      accessToken: expect.stringMatching(/^[\w-]{43}$/),
      tokenType: 'Bearer',
      expiresAt: clock.now() + 3_600_000,
      refreshToken: expect.stringMatching(/^[\w-]{43}$/),
      scope: 'openid offline_access',
    });
    expect(tokens.idTokenClaims).toMatchObject({
      iss: op.issuer,
      sub: ACCOUNT_ID,
      aud: ROTATING.id,
      nonce: pending.nonce,
    });
    const response = await userinfo(tokens.accessToken);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sub: ACCOUNT_ID });
  });

  it('the code exchange fails with invalid_grant when the verifier is not the one challenged (RFC 7636 §4.6)', async () => {
    const pending = await client.createAuthorizationRequest(AUTHORIZE);
    const other = await client.createAuthorizationRequest(AUTHORIZE);
    const code = client.handleCallback(await browse(pending.url), pending.state);
    await expect(
      client.exchangeCode(code, { codeVerifier: other.codeVerifier, nonce: pending.nonce }),
    ).rejects.toMatchObject(oauthError('invalid_grant'));
  });

  it('a code is exchanged once: the second exchange fails with invalid_grant', async () => {
    const pending = await client.createAuthorizationRequest(AUTHORIZE);
    const code = client.handleCallback(await browse(pending.url), pending.state);
    await client.exchangeCode(code, pending);
    await expect(client.exchangeCode(code, pending)).rejects.toMatchObject(oauthError('invalid_grant'));
  });

  it('a wrong client secret fails with invalid_client', async () => {
    const pending = await client.createAuthorizationRequest(AUTHORIZE);
    const code = client.handleCallback(await browse(pending.url), pending.state);
    const impostor = helperFor({ id: ROTATING.id, secret: 'not the secret' });
    await expect(impostor.exchangeCode(code, pending)).rejects.toMatchObject(oauthError('invalid_client'));
  });

  it('refresh returns a new access token and the rotated refresh token, stored before it resolves', async () => {
    const tokens = await signIn();
    let stored: TokenSet | undefined;
    const next = await client.refresh(tokens.refreshToken!, {
      store: async (set) => {
        stored = set;
      },
    });
    expect(stored).toEqual(next);
    expect(next.accessToken).toMatch(/^[\w-]{43}$/);
    expect(next.accessToken).not.toBe(tokens.accessToken);
    expect(next.refreshToken).toMatch(/^[\w-]{43}$/);
    expect(next.refreshToken).not.toBe(tokens.refreshToken);
    expect(next.expiresAt).toBe(clock.now() + 3_600_000);
    expect(next.idTokenClaims).toMatchObject({ iss: op.issuer, sub: ACCOUNT_ID, aud: ROTATING.id });
    expect((await userinfo(next.accessToken)).status).toBe(200);
  });

  it('reusing a rotated refresh token fails with invalid_grant, and the provider revokes its successor', async () => {
    const tokens = await signIn();
    const next = await client.refresh(tokens.refreshToken!, { store: async () => {} });
    await expect(client.refresh(tokens.refreshToken!, { store: async () => {} })).rejects.toMatchObject(
      oauthError('invalid_grant'),
    );
    await expect(client.refresh(next.refreshToken!, { store: async () => {} })).rejects.toMatchObject(
      oauthError('invalid_grant'),
    );
  });

  it('refresh keeps the refresh token when the provider does not rotate it', async () => {
    const steady = helperFor(STEADY);
    const tokens = await signIn(steady);
    const first = await steady.refresh(tokens.refreshToken!, { store: async () => {} });
    expect(first.refreshToken).toBe(tokens.refreshToken);
    expect(first.accessToken).not.toBe(tokens.accessToken);
    const second = await steady.refresh(first.refreshToken!, { store: async () => {} });
    expect(second.accessToken).not.toBe(first.accessToken);
  });

  it('refresh can ask for fewer scopes than were granted (RFC 6749 §6)', async () => {
    const tokens = await signIn();
    const narrowed = await client.refresh(tokens.refreshToken!, {
      store: async () => {},
      scopes: ['openid'],
    });
    expect(narrowed.scope).toBe('openid');
  });

  it('a revoked refresh token no longer refreshes, and the access tokens of its grant stop working', async () => {
    const tokens = await signIn();
    await client.revoke(tokens.refreshToken!, { hint: 'refresh_token' });
    await expect(client.refresh(tokens.refreshToken!, { store: async () => {} })).rejects.toMatchObject(
      oauthError('invalid_grant'),
    );
    expect((await userinfo(tokens.accessToken)).status).toBe(401);
  });

  it('revocation with a wrong client secret fails with invalid_client (RFC 7009 §2.2.1)', async () => {
    const tokens = await signIn();
    const impostor = helperFor({ id: ROTATING.id, secret: 'not the secret' });
    await expect(impostor.revoke(tokens.refreshToken!)).rejects.toMatchObject(oauthError('invalid_client'));
    const next = await client.refresh(tokens.refreshToken!, { store: async () => {} });
    expect(next.accessToken).toMatch(/^[\w-]{43}$/);
  });
});

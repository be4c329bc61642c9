/**
 * Helpers for calling other OAuth 2.0 systems as a client (RFC 6749 §4.1 with PKCE, RFC 7636): build
 * the authorization URL, check the callback, exchange the code, refresh with rotation, revoke. ID
 * tokens (OpenID Connect) are verified before any of their claims are returned. Web APIs only
 * (`fetch`, Web Crypto via `@oslojs/*` and `jose`), so they run on Node, Deno, Bun and edge runtimes.
 */
import { SwitchboardError } from '../../core/errors.js';
import { type Clock, systemClock } from '../../core/runtime.js';
import { textEquals } from '../../internal/text-equals.js';
import { pkceChallenge, randomUrlSafe } from '../secrets.js';
import { createIdTokenVerifier, type IdTokenClaims } from './id-token.js';

export type { IdTokenClaims } from './id-token.js';

/** Where the other system's OAuth endpoints are, and this app's client id, secret and redirect URI there. */
export interface OAuthClientConfig {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly revocationEndpoint?: string;
  readonly clientId: string;
  /** Confidential clients only; sent with HTTP Basic (RFC 6749 §2.3.1). */
  readonly clientSecret?: string;
  readonly redirectUri: string;
  /**
   * The authorization server's issuer, to check the `iss` of the callback (RFC 9207) when it sends one
   * and the `iss` of ID tokens. Required to receive ID tokens: its metadata gives the JWKS.
   */
  readonly issuer?: string;
  /** The issuer's JWK Set; read from its metadata (`jwks_uri`) when omitted. */
  readonly jwksUri?: string;
  /** Default: the global `fetch`. Also reads the issuer's metadata and JWKS. */
  readonly fetch?: typeof fetch;
  /** For `expiresAt` and an ID token's `exp`; the system clock when omitted. */
  readonly clock?: Clock;
}

/** What to keep (server-side, e.g. in the session) between the redirect and the callback. */
export interface PendingAuthorization {
  readonly url: URL;
  readonly state: string;
  readonly codeVerifier: string;
  /** The OpenID Connect `nonce` sent when the scopes include `openid` (else null); the ID token must echo it. */
  readonly nonce: string | null;
}

/** What `exchangeCode` needs from the pending authorization; the PKCE verifier alone means no nonce was sent. */
export type CodeExchange = string | { readonly codeVerifier: string; readonly nonce?: string | null };

/** Tokens from a token response (RFC 6749 §5.1). `expiresAt` is epoch ms, computed on receipt. */
export interface TokenSet {
  readonly accessToken: string;
  readonly tokenType: string;
  readonly expiresAt: number | null;
  readonly refreshToken: string | null;
  readonly scope: string | null;
  /** Only ever a verified ID token: signature (issuer's JWKS), `iss`, `aud`, `exp`, `iat`, `nonce`. */
  readonly idToken: string | null;
  /** The claims of `idToken`, once verified. */
  readonly idTokenClaims: IdTokenClaims | null;
}

/**
 * Calls to another OAuth 2.0 server as one client: authorize with PKCE, handle the callback, exchange,
 * refresh and revoke tokens.
 */
export interface OAuthClient {
  /**
   * A fresh authorization URL with random `state` and an S256 PKCE challenge, and a random `nonce` when
   * the scopes include `openid` (or the one given in `extra`).
   */
  createAuthorizationRequest(options: {
    scopes: readonly string[];
    extra?: Record<string, string>;
  }): Promise<PendingAuthorization>;
  /** Checks the callback URL: `state` must equal the one sent (CSRF), `error` becomes a SwitchboardError; returns the code. */
  handleCallback(callbackUrl: string | URL, expectedState: string): string;
  /**
   * Exchanges the code server-to-server, with the client secret and the PKCE verifier. Pass the pending
   * authorization (or `{ codeVerifier, nonce }`) so an ID token's `nonce` is checked; an ID token that
   * fails a check throws a `forbidden` SwitchboardError and nothing is returned.
   */
  exchangeCode(code: string, pending: CodeExchange): Promise<TokenSet>;
  /**
   * Refreshes. When the server rotates the refresh token, `store` gets the new set and is awaited
   * before this resolves: store it atomically (compare-and-set on the old token) so two workers
   * refreshing at once do not lose the newer token. An ID token in the answer is verified as at the
   * exchange, except `nonce` (OIDC Core §12.2).
   */
  refresh(
    refreshToken: string,
    options: { store: (tokens: TokenSet) => Promise<void>; scopes?: readonly string[] },
  ): Promise<TokenSet>;
  /**
   * Revokes a token (RFC 7009). An error response (RFC 7009 §2.2.1) throws a `bad_request`
   * SwitchboardError whose detail carries the server's OAuth `error` code (`invalid_client`,
   * `unsupported_token_type`, …); a 503, or an answer that is no OAuth error, throws `unavailable`.
   */
  revoke(token: string, options?: { hint?: 'access_token' | 'refresh_token' }): Promise<void>;
}

/**
 * Creates an {@link OAuthClient} for one registered app at one authorization server.
 *
 * @example
 * const crm = createOAuthClient({ authorizationEndpoint, tokenEndpoint, clientId, clientSecret, redirectUri });
 * const pending = await crm.createAuthorizationRequest({ scopes: ['contacts.read'] });
 * // redirect the user to pending.url; keep pending.state, .codeVerifier and .nonce in the session
 * const code = crm.handleCallback(request.url, session.state);
 * const tokens = await crm.exchangeCode(code, session); // { codeVerifier, nonce }
 */
export function createOAuthClient(config: OAuthClientConfig): OAuthClient {
  const doFetch = config.fetch ?? ((input, init) => fetch(input, init));
  const clock = config.clock ?? systemClock;
  const verifyIdToken = createIdTokenVerifier({
    issuer: config.issuer,
    clientId: config.clientId,
    jwksUri: config.jwksUri,
    fetch: doFetch,
    clock,
  });

  async function post(endpoint: string, params: Record<string, string>): Promise<Response> {
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const body = new URLSearchParams(params);
    if (config.clientSecret !== undefined) {
      const encode = (v: string): string => encodeURIComponent(v).replaceAll('%20', '+');
      headers.authorization = `Basic ${btoa(`${encode(config.clientId)}:${encode(config.clientSecret)}`)}`;
    } else {
      body.set('client_id', config.clientId);
    }
    return doFetch(endpoint, { method: 'POST', headers, body, redirect: 'error' });
  }

  /** `expectedNonce`: see {@link createIdTokenVerifier}'s verifier. */
  async function tokenRequest(
    params: Record<string, string>,
    expectedNonce: string | null | undefined,
  ): Promise<TokenSet> {
    const response = await post(config.tokenEndpoint, params);
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok || !body || typeof body.access_token !== 'string') {
      const error = oauthError(body) ?? {
        code: `HTTP ${response.status}`,
        message: `HTTP ${response.status}`,
      };
      throw new SwitchboardError('bad_request', `The token request failed: ${error.code}.`, {
        details: [{ field: 'error', ...error }],
      });
    }
    const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    const receivedAt = clock.now();
    const idToken = str(body.id_token);
    const idTokenClaims = idToken === null ? null : await verifyIdToken(idToken, expectedNonce);
    return {
      accessToken: body.access_token,
      tokenType: str(body.token_type) ?? 'Bearer',
      expiresAt: typeof body.expires_in === 'number' ? receivedAt + body.expires_in * 1000 : null,
      refreshToken: str(body.refresh_token),
      scope: str(body.scope),
      idToken,
      idTokenClaims,
    };
  }

  return {
    async createAuthorizationRequest({ scopes, extra = {} }) {
      const state = randomUrlSafe();
      const codeVerifier = randomUrlSafe();
      const nonce = extra.nonce ?? (scopes.includes('openid') ? randomUrlSafe() : null);
      const url = new URL(config.authorizationEndpoint);
      const params = {
        ...extra,
        response_type: 'code',
        client_id: config.clientId,
        redirect_uri: config.redirectUri,
        scope: scopes.join(' '),
        state,
        code_challenge: pkceChallenge(codeVerifier),
        code_challenge_method: 'S256',
        ...(nonce === null ? {} : { nonce }),
      };
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return { url, state, codeVerifier, nonce };
    },
    handleCallback(callbackUrl, expectedState) {
      const params = new URL(callbackUrl).searchParams;
      const state = params.get('state');
      if (state === null || !textEquals(state, expectedState)) {
        throw new SwitchboardError('forbidden', 'The state does not match the one sent: possible CSRF.', {
          details: [{ field: 'state', code: 'state_mismatch', message: 'Start the sign-in again.' }],
        });
      }
      const iss = params.get('iss');
      if (config.issuer !== undefined && iss !== null && iss !== config.issuer) {
        throw new SwitchboardError('forbidden', 'The response comes from another issuer (RFC 9207).', {
          details: [{ field: 'iss', code: 'issuer_mismatch', message: `Expected ${config.issuer}.` }],
        });
      }
      const error = params.get('error');
      if (error !== null) {
        throw new SwitchboardError(
          error === 'access_denied' ? 'forbidden' : 'bad_request',
          `Authorization failed: ${error}.`,
          {
            details: [{ field: 'error', code: error, message: params.get('error_description') ?? error }],
          },
        );
      }
      const code = params.get('code');
      if (!code) throw new SwitchboardError('bad_request', 'The callback has no code.');
      return code;
    },
    exchangeCode(code, pending) {
      const { codeVerifier, nonce = null } =
        typeof pending === 'string' ? { codeVerifier: pending } : pending;
      return tokenRequest(
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: config.redirectUri,
          code_verifier: codeVerifier,
        },
        nonce,
      );
    },
    async refresh(refreshToken, { store, scopes }) {
      const tokens = await tokenRequest(
        {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          ...(scopes?.length ? { scope: scopes.join(' ') } : {}),
        },
        undefined, // OIDC Core §12.2: a refreshed ID token need not carry the nonce
      );
      // Servers that do not rotate send no new refresh token: keep the old one.
      const next = tokens.refreshToken === null ? { ...tokens, refreshToken } : tokens;
      await store(next);
      return next;
    },
    async revoke(token, options = {}) {
      if (!config.revocationEndpoint)
        throw new SwitchboardError('bad_request', 'No revocation endpoint is configured.');
      const response = await post(config.revocationEndpoint, {
        token,
        ...(options.hint ? { token_type_hint: options.hint } : {}),
      });
      if (!response.ok) {
        const error = oauthError(await response.json().catch(() => null));
        // RFC 7009 §2.2.1: after a 503 the token may still be valid; the caller should try again later.
        if (error === null || response.status === 503)
          throw new SwitchboardError('unavailable', `Revocation failed with HTTP ${response.status}.`);
        throw new SwitchboardError('bad_request', `Revocation failed: ${error.code}.`, {
          details: [{ field: 'error', ...error }],
        });
      }
    },
  };
}

/** The `error` and `error_description` of an OAuth error response (RFC 6749 §5.2), or null when it is none. */
function oauthError(body: unknown): { code: string; message: string } | null {
  if (typeof body !== 'object' || body === null) return null;
  const { error, error_description: description } = body as Record<string, unknown>;
  if (typeof error !== 'string') return null;
  return { code: error, message: typeof description === 'string' ? description : error };
}

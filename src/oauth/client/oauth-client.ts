/**
 * Helpers for calling other OAuth 2.0 systems as a client (RFC 6749 §4.1 with PKCE, RFC 7636): build
 * the authorization URL, check the callback, exchange the code, refresh with rotation, revoke. Web APIs
 * only (`fetch`, Web Crypto via `@oslojs/*`), so they run on Node, Deno, Bun and edge runtimes.
 */
import { SwitchboardError } from '../../core/errors.js';
import { type Clock, systemClock } from '../../core/runtime.js';
import { textEquals } from '../../internal/text-equals.js';
import { pkceChallenge, randomUrlSafe } from '../secrets.js';

export interface OAuthClientConfig {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly revocationEndpoint?: string;
  readonly clientId: string;
  /** Confidential clients only; sent with HTTP Basic (RFC 6749 §2.3.1). */
  readonly clientSecret?: string;
  readonly redirectUri: string;
  /** The authorization server's issuer, to check the `iss` of the callback (RFC 9207) when it sends one. */
  readonly issuer?: string;
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** For `expiresAt`; the system clock when omitted. */
  readonly clock?: Clock;
}

/** What to keep (server-side, e.g. in the session) between the redirect and the callback. */
export interface PendingAuthorization {
  readonly url: URL;
  readonly state: string;
  readonly codeVerifier: string;
}

/** Tokens from a token response (RFC 6749 §5.1). `expiresAt` is epoch ms, computed on receipt. */
export interface TokenSet {
  readonly accessToken: string;
  readonly tokenType: string;
  readonly expiresAt: number | null;
  readonly refreshToken: string | null;
  readonly scope: string | null;
  readonly idToken: string | null;
}

export interface OAuthClient {
  /** A fresh authorization URL with random `state` and an S256 PKCE challenge. */
  createAuthorizationRequest(options: {
    scopes: readonly string[];
    extra?: Record<string, string>;
  }): Promise<PendingAuthorization>;
  /** Checks the callback URL: `state` must equal the one sent (CSRF), `error` becomes a SwitchboardError; returns the code. */
  handleCallback(callbackUrl: string | URL, expectedState: string): string;
  /** Exchanges the code server-to-server, with the client secret and the PKCE verifier. */
  exchangeCode(code: string, codeVerifier: string): Promise<TokenSet>;
  /**
   * Refreshes. When the server rotates the refresh token, `store` gets the new set and is awaited
   * before this resolves: store it atomically (compare-and-set on the old token) so two workers
   * refreshing at once do not lose the newer token.
   */
  refresh(
    refreshToken: string,
    options: { store: (tokens: TokenSet) => Promise<void>; scopes?: readonly string[] },
  ): Promise<TokenSet>;
  /** Revokes a token (RFC 7009). */
  revoke(token: string, options?: { hint?: 'access_token' | 'refresh_token' }): Promise<void>;
}

/**
 * @example
 * const crm = createOAuthClient({ authorizationEndpoint, tokenEndpoint, clientId, clientSecret, redirectUri });
 * const pending = await crm.createAuthorizationRequest({ scopes: ['contacts.read'] });
 * // redirect the user to pending.url; keep pending.state and pending.codeVerifier in the session
 * const code = crm.handleCallback(request.url, session.state);
 * const tokens = await crm.exchangeCode(code, session.codeVerifier);
 */
export function createOAuthClient(config: OAuthClientConfig): OAuthClient {
  const doFetch = config.fetch ?? ((input, init) => fetch(input, init));
  const clock = config.clock ?? systemClock;

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

  async function tokenRequest(params: Record<string, string>): Promise<TokenSet> {
    const response = await post(config.tokenEndpoint, params);
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok || !body || typeof body.access_token !== 'string') {
      const error = typeof body?.error === 'string' ? body.error : `HTTP ${response.status}`;
      throw new SwitchboardError('bad_request', `The token request failed: ${error}.`, {
        details: [{ field: 'error', code: error, message: String(body?.error_description ?? error) }],
      });
    }
    const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    return {
      accessToken: body.access_token,
      tokenType: str(body.token_type) ?? 'Bearer',
      expiresAt: typeof body.expires_in === 'number' ? clock.now() + body.expires_in * 1000 : null,
      refreshToken: str(body.refresh_token),
      scope: str(body.scope),
      idToken: str(body.id_token),
    };
  }

  return {
    async createAuthorizationRequest({ scopes, extra = {} }) {
      const state = randomUrlSafe();
      const codeVerifier = randomUrlSafe();
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
      };
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      return { url, state, codeVerifier };
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
    exchangeCode(code, codeVerifier) {
      return tokenRequest({
        grant_type: 'authorization_code',
        code,
        redirect_uri: config.redirectUri,
        code_verifier: codeVerifier,
      });
    },
    async refresh(refreshToken, { store, scopes }) {
      const tokens = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        ...(scopes?.length ? { scope: scopes.join(' ') } : {}),
      });
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
      if (!response.ok)
        throw new SwitchboardError('unavailable', `Revocation failed with HTTP ${response.status}.`);
    },
  };
}

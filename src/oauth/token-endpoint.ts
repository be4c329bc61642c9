import { SwitchboardError } from '../core/errors.js';
import type { GrantRecord, OAuthClientRecord } from '../core/storage/index.js';
import { jsonResponse } from '../http/json.js';
import type { RateHeaders } from '../http/rate-limit.js';
import type { Requester } from '../http/request-context.js';
import { textEquals } from '../internal/text-equals.js';
import { authenticateWithinBudget, takeTokenBudget, withRateHeaders } from './budgets.js';
import { announceCredentialChange } from './credential-changes.js';
import { parseScopes, readForm, single } from './form.js';
import { issueTokens, type TokenResponse } from './issue-tokens.js';
import { oauthError, oauthErrorResponse } from './oauth-error.js';
import { audienceFor, parseResources } from './resource-indicators.js';
import { hashSecret, pkceChallenge } from './secrets.js';
import { OPENID_SCOPE, type ServerContext } from './server-options.js';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const CLEANUP_EVERY_MS = 10 * 60_000;
/** Consumed codes are kept this long after expiry, so a late replay is still caught and revokes. */
const RETENTION_MS = 60 * 60_000;

/**
 * The token endpoint (RFC 6749 §3.2): `authorization_code` (with PKCE, RFC 7636 §4.6),
 * `refresh_token` (rotating, with reuse detection) and `client_credentials`. Responses carry
 * `Cache-Control: no-store` (§5.1); errors use the standard `error` codes (§5.2).
 */
export function tokenEndpoint(
  ctx: ServerContext,
): (request: Request, context: Requester) => Promise<Response> {
  let nextCleanup = 0;
  return async (request, context) => {
    let limits: RateHeaders | undefined;
    try {
      if (request.method !== 'POST') throw new SwitchboardError('method_not_allowed', 'Use POST.');
      if (new URL(request.url).search)
        throw oauthError('invalid_request', 'Send parameters in the body, not the URL.');
      const params = await readForm(request, ctx.maxBodyBytes);
      // A failure is charged to the address; the client's budget only once it has authenticated.
      const { client } = await authenticateWithinBudget(ctx, context, params);
      if (ctx.rateLimit) limits = await takeTokenBudget(ctx.rateLimit, context, client);
      const issuer = ctx.issuerFor(request);
      const grantType = single(params, 'grant_type');
      let body: TokenResponse;
      if (grantType === 'authorization_code') body = await exchangeCode(ctx, client, params, issuer);
      else if (grantType === 'refresh_token') body = await refresh(ctx, client, params, issuer);
      else if (grantType === 'client_credentials')
        body = await clientCredentials(ctx, client, params, issuer);
      else throw oauthError('unsupported_grant_type', `Unsupported grant_type "${grantType ?? ''}".`);
      const now = ctx.clock.now();
      if (now >= nextCleanup) {
        nextCleanup = now + CLEANUP_EVERY_MS;
        ctx.storage.oauth.deleteExpired(now - RETENTION_MS).catch((error) => {
          ctx.logger.log('warn', 'oauth cleanup failed', { error: String(error) });
        });
      }
      return jsonResponse(200, body, limits ? { ...NO_STORE, ...limits } : NO_STORE);
    } catch (error) {
      if (!(error instanceof SwitchboardError)) {
        ctx.logger.log('error', 'token endpoint failed', { error: String(error) });
      }
      return oauthErrorResponse(withRateHeaders(error, limits));
    }
  };
}

async function exchangeCode(
  ctx: ServerContext,
  client: OAuthClientRecord,
  params: URLSearchParams,
  issuer: string,
): Promise<TokenResponse> {
  if (!client.grantTypes.includes('authorization_code')) {
    throw oauthError('unauthorized_client', 'This client may not use the authorization code grant.');
  }
  const code = single(params, 'code');
  if (!code) throw oauthError('invalid_request', 'The code is missing.');
  const verifier = single(params, 'code_verifier');
  const redirectUri = single(params, 'redirect_uri');
  const now = ctx.clock.now();
  const result = await ctx.storage.oauth.codes.consume(hashSecret(code), now);
  if (result.state === 'missing') throw oauthError('invalid_grant', 'The authorization code is not valid.');
  if (result.state === 'reused') {
    // RFC 6749 §4.1.2: a code used twice revokes everything issued from it.
    await ctx.storage.oauth.grants.revoke(result.code.grantId, now);
    await announceCredentialChange(ctx.bus, ctx.logger, { grant: result.code.grantId });
    ctx.logger.log('warn', 'authorization code replayed; grant revoked', {
      grantId: result.code.grantId,
      clientId: client.id,
    });
    throw oauthError('invalid_grant', 'The authorization code has already been used.');
  }
  const stored = result.code;
  if (stored.clientId !== client.id)
    throw oauthError('invalid_grant', 'The code was issued to another client.');
  if (stored.expiresAt <= now) throw oauthError('invalid_grant', 'The authorization code has expired.');
  if (redirectUri !== stored.redirectUri) {
    throw oauthError('invalid_grant', 'redirect_uri does not match the authorization request.');
  }
  if (stored.codeChallenge !== null) {
    if (!verifier) throw oauthError('invalid_grant', 'The code_verifier is missing.');
    if (
      !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) ||
      !textEquals(pkceChallenge(verifier), stored.codeChallenge)
    ) {
      throw oauthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
    }
  } else if (verifier !== undefined) {
    // A verifier for a code issued without a challenge means someone stripped the challenge (RFC 9700 §4.8.2).
    throw oauthError('invalid_grant', 'A code_verifier was sent for a code issued without a code_challenge.');
  }
  const grant = await liveGrant(ctx, stored.grantId, client, now);
  return issueTokens(ctx, {
    grant,
    client,
    // What this consent granted: the grant may hold more, from the user's earlier consents to the app.
    scopes: stored.scopes.filter((scope) => grant.scopes.includes(scope)),
    audience: audienceFor(stored.resources ?? grant.resources ?? [], parseResources(params, issuer)),
    refresh: client.grantTypes.includes('refresh_token'),
    issuer,
    idToken: { nonce: stored.nonce },
  });
}

async function refresh(
  ctx: ServerContext,
  client: OAuthClientRecord,
  params: URLSearchParams,
  issuer: string,
): Promise<TokenResponse> {
  if (!client.grantTypes.includes('refresh_token')) {
    throw oauthError('unauthorized_client', 'This client may not use refresh tokens.');
  }
  const token = single(params, 'refresh_token');
  if (!token) throw oauthError('invalid_request', 'The refresh_token is missing.');
  const now = ctx.clock.now();
  const hash = hashSecret(token);
  // Check ownership before marking the token used, so another client cannot burn it.
  const found = await ctx.storage.oauth.refreshTokens.get(hash);
  if (!found) throw oauthError('invalid_grant', 'The refresh token is not valid.');
  const grant = await liveGrant(ctx, found.grantId, client, now);
  const result = await ctx.storage.oauth.refreshTokens.use(hash, now);
  if (result.state === 'missing') throw oauthError('invalid_grant', 'The refresh token is not valid.');
  if (result.state === 'used' && now - (result.token.usedAt ?? 0) > ctx.refreshGraceMs) {
    // A rotated-out token came back: it was copied. Revoke the whole family (RFC 9700 §4.14.2).
    await ctx.storage.oauth.grants.revoke(grant.id, now);
    await announceCredentialChange(ctx.bus, ctx.logger, { grant: grant.id });
    ctx.logger.log('warn', 'refresh token reused; grant revoked', { grantId: grant.id, clientId: client.id });
    throw oauthError('invalid_grant', 'The refresh token has already been used.');
  }
  if (result.token.expiresAt <= now) throw oauthError('invalid_grant', 'The refresh token has expired.');
  const requested = parseScopes(single(params, 'scope'));
  for (const scope of requested) {
    if (!grant.scopes.includes(scope)) {
      throw oauthError('invalid_scope', `The scope ${scope} was not granted; a refresh cannot widen scopes.`);
    }
  }
  const scopes = requested.length ? requested : grant.scopes;
  const audience = audienceFor(grant.resources ?? [], parseResources(params, issuer));
  return issueTokens(ctx, { grant, client, scopes, audience, refresh: true, issuer });
}

async function clientCredentials(
  ctx: ServerContext,
  client: OAuthClientRecord,
  params: URLSearchParams,
  issuer: string,
): Promise<TokenResponse> {
  if (client.secretHash === null || !client.grantTypes.includes('client_credentials')) {
    throw oauthError('unauthorized_client', 'This client may not use the client credentials grant.');
  }
  const requested = parseScopes(single(params, 'scope'));
  for (const scope of requested) {
    if (scope === OPENID_SCOPE || !client.scopes.includes(scope)) {
      throw oauthError('invalid_scope', `The scope ${scope} is not available to this client.`);
    }
  }
  const resources = parseResources(params, issuer);
  const now = ctx.clock.now();
  const grant: GrantRecord = {
    id: ctx.ids('grt'),
    clientId: client.id,
    userId: null,
    scopes: requested.length ? requested : client.scopes,
    ...(resources.length ? { resources } : {}),
    createdAt: now,
    expiresAt: now + ctx.accessTokenTtlMs,
    revokedAt: null,
  };
  await ctx.storage.oauth.grants.insert(grant);
  return issueTokens(ctx, {
    grant,
    client,
    scopes: grant.scopes,
    audience: resources,
    refresh: false,
    issuer,
  });
}

async function liveGrant(
  ctx: ServerContext,
  grantId: string,
  client: OAuthClientRecord,
  now: number,
): Promise<GrantRecord> {
  const grant = await ctx.storage.oauth.grants.get(grantId);
  if (!grant || grant.clientId !== client.id) throw oauthError('invalid_grant', 'The grant is not valid.');
  if (grant.revokedAt !== null) throw oauthError('invalid_grant', 'The grant has been revoked.');
  if (grant.expiresAt <= now) throw oauthError('invalid_grant', 'The grant has expired; sign in again.');
  return grant;
}

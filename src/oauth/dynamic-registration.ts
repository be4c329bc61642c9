/**
 * Dynamic client registration (RFC 7591): an MCP agent registers itself, with nobody to set it up.
 * Only what cannot be abused without a user's consent is offered: public clients (no secret, so
 * `token_endpoint_auth_method` is `none`) using the authorization code with PKCE and refresh tokens,
 * redirect URIs by the admin registration's rules, scopes below administration. Such a client is
 * stored as self-registered, and the consent page calls it unverified and shows where it redirects.
 */
import { SwitchboardError } from '../core/errors.js';
import { isStorableText } from '../core/storable-text.js';
import type { OAuthClientRecord, OAuthGrantType } from '../core/storage/index.js';
import { readJson } from '../http/body.js';
import { jsonResponse } from '../http/json.js';
import type { RateHeaders } from '../http/rate-limit.js';
import type { Requester } from '../http/request-context.js';
import { takeRegistrationBudget, withRateHeaders } from './budgets.js';
import { oauthError, oauthErrorResponse } from './oauth-error.js';
import { isAdminScope } from './protected-resource.js';
import { redirectUriProblem } from './redirect-uri.js';
import { OPENID_SCOPE, type ServerContext } from './server-options.js';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
const GRANT_TYPES: readonly OAuthGrantType[] = ['authorization_code', 'refresh_token'];
const MAX_NAME = 100;
const MAX_REDIRECT_URIS = 10;

/** The registration endpoint: `POST` a JSON client metadata document, answered 201 or an RFC 7591 error. */
export function registrationEndpoint(
  ctx: ServerContext,
): (request: Request, context: Requester) => Promise<Response> {
  return async (request, context) => {
    let limits: RateHeaders | undefined;
    try {
      if (request.method !== 'POST') throw new SwitchboardError('method_not_allowed', 'Use POST.');
      if (ctx.rateLimit) limits = await takeRegistrationBudget(ctx.rateLimit, context);
      if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? ''))
        throw oauthError('invalid_client_metadata', 'Send the client metadata as application/json.');
      const metadata = await readJson(request, ctx.maxBodyBytes).catch(() => {
        throw oauthError('invalid_client_metadata', 'The body is not a JSON object.');
      });
      const client = clientFromMetadata(ctx, metadata, ctx.ids('oac'));
      await ctx.storage.oauth.clients.insert(client);
      return jsonResponse(201, clientInformation(client), limits ? { ...NO_STORE, ...limits } : NO_STORE);
    } catch (error) {
      if (!(error instanceof SwitchboardError)) {
        ctx.logger.log('error', 'registration endpoint failed', { error: String(error) });
      }
      return oauthErrorResponse(withRateHeaders(error, limits));
    }
  };
}

/**
 * The client a metadata document describes, under `id`, or the RFC 7591 §3.2.2 error saying what is
 * wrong with it: what a registration stores, and what a client ID metadata document stands for.
 */
export function clientFromMetadata(ctx: ServerContext, metadata: unknown, id: string): OAuthClientRecord {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw oauthError('invalid_client_metadata', 'The body is not a JSON object.');
  const m = metadata as Record<string, unknown>;

  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string'))
    throw oauthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URLs.');
  if (uris.length > MAX_REDIRECT_URIS)
    throw oauthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs.`);
  for (const uri of uris as string[]) {
    const problem = isStorableText(uri) ? redirectUriProblem(uri) : 'A redirect URI holds NUL.';
    if (problem) throw oauthError('invalid_redirect_uri', problem);
  }

  const method = m.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    throw oauthError(
      'invalid_client_metadata',
      'Only public clients may register themselves: token_endpoint_auth_method must be "none".',
    );
  const grantTypes = m.grant_types ?? ['authorization_code'];
  if (!Array.isArray(grantTypes) || !grantTypes.every((g) => GRANT_TYPES.includes(g)))
    throw oauthError(
      'invalid_client_metadata',
      'grant_types may hold only "authorization_code" and "refresh_token".',
    );
  const responseTypes = m.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || !responseTypes.every((r) => r === 'code'))
    throw oauthError('invalid_client_metadata', 'response_types may hold only "code".');

  const name = m.client_name ?? 'Unnamed app';
  if (typeof name !== 'string' || !name.trim() || name.length > MAX_NAME || !isStorableText(name))
    throw oauthError('invalid_client_metadata', `client_name must be text of 1 to ${MAX_NAME} characters.`);

  return {
    id,
    name: name.trim(),
    secretHash: null,
    redirectUris: [...new Set(uris as string[])],
    scopes: registeredScopes(ctx, m.scope),
    // Refresh tokens always: an agent works for a user long after the consent; the grant's lifetime caps it.
    grantTypes: [...GRANT_TYPES],
    createdAt: ctx.clock.now(),
    selfRegistered: true,
  };
}

/**
 * The scopes asked for, or every one a self-registered client may have when none is named. An
 * administration scope is refused, not dropped: a client asking for it should learn so now, not from
 * a token that lacks it later; and unknown scopes are refused the same way.
 */
function registeredScopes(ctx: ServerContext, scope: unknown): string[] {
  const allowed = [...Object.keys(ctx.scopes), ...(ctx.idTokens ? [OPENID_SCOPE] : [])].filter(
    (s) => !isAdminScope(s),
  );
  if (scope === undefined) return allowed;
  if (typeof scope !== 'string')
    throw oauthError('invalid_client_metadata', 'scope must be a space-separated string.');
  const asked = [...new Set(scope.split(' ').filter(Boolean))];
  const admin = asked.filter(isAdminScope);
  if (admin.length)
    throw oauthError(
      'invalid_client_metadata',
      `A client that registers itself may not ask for administration (${admin.join(', ')}).`,
    );
  const unknown = asked.filter((s) => !allowed.includes(s));
  if (unknown.length) throw oauthError('invalid_client_metadata', `Unknown scope: ${unknown.join(', ')}.`);
  return asked.length ? asked : allowed;
}

/** The client information response (RFC 7591 §3.2.1): the id and the metadata as registered. */
function clientInformation(client: OAuthClientRecord): Record<string, unknown> {
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt / 1000),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: client.scopes.join(' '),
  };
}

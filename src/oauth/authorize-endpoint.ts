import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import type { OAuthClientRecord } from '../storage/contract/index.js';
import {
  type ConsentView,
  type ErrorPageApp,
  PAGE_HEADERS,
  renderConsentPage,
  renderErrorPage,
} from './consent-page.js';
import { type Csrf, csrfCookieHeader } from './csrf.js';
import { parseScopes, readForm, single } from './form.js';
import { oauthError, oauthErrorCodeOf } from './oauth-error.js';
import { redirectUriAllowed } from './redirect-uri.js';
import { hashSecret, randomSecret } from './secrets.js';
import { OPENID_SCOPE, type ServerContext } from './server-options.js';

/** The authorization request once every check has passed. */
interface AuthorizationRequest {
  readonly client: OAuthClientRecord;
  readonly redirectUri: string;
  readonly state: string | undefined;
  readonly scopes: readonly string[];
  readonly codeChallenge: string | null;
  readonly nonce: string | null;
}

const ECHOED = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
] as const;

/** Error shown to the user, never redirected: the redirect URI is not trusted yet (RFC 6749 §4.1.2.1). */
class UntrustedRequest extends Error {
  constructor(
    message: string,
    /** The app, when the request named a registered one. */
    readonly app?: ErrorPageApp,
  ) {
    super(message);
  }
}

/** The app as an error page names it: its name, and its site when a redirect URI is on https. */
function appOf(client: OAuthClientRecord): ErrorPageApp {
  const https = client.redirectUris.find((uri) => uri.startsWith('https://'));
  return { name: client.name, ...(https ? { home: new URL(https).origin } : {}) };
}

/**
 * The authorization endpoint (RFC 6749 §4.1.1): GET shows the sign-in and consent page, POST takes the
 * user's answer and redirects back with a code, or with `error`, always with `state` and `iss` (RFC 9207).
 */
export function authorizeEndpoint(ctx: ServerContext, csrf: Csrf): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'POST') {
      throw new SwitchboardError('method_not_allowed', 'Use GET or POST.');
    }
    const params =
      request.method === 'GET'
        ? new URL(request.url).searchParams
        : await readForm(request, ctx.maxBodyBytes);
    const issuer = ctx.issuerFor(request);

    let client: OAuthClientRecord;
    let redirectUri: string;
    try {
      ({ client, redirectUri } = await trustedTarget(ctx, params));
    } catch (error) {
      const message =
        error instanceof UntrustedRequest || isSwitchboardError(error) ? error.message : 'Bad request.';
      const app = error instanceof UntrustedRequest ? error.app : undefined;
      return new Response(renderErrorPage(message, app), { status: 400, headers: PAGE_HEADERS });
    }
    const state = params.get('state') ?? undefined;
    const status = request.method === 'POST' ? 303 : 302;
    const back = (query: Record<string, string>): Response =>
      redirect(redirectUri, { ...query, ...(state === undefined ? {} : { state }), iss: issuer }, status);

    let authorization: AuthorizationRequest;
    try {
      authorization = checkRequest(ctx, params, client, redirectUri);
    } catch (error) {
      const message = isSwitchboardError(error) ? error.message : 'The request is not valid.';
      return back({ error: oauthErrorCodeOf(error), error_description: message });
    }

    if (request.method === 'GET') return page(ctx, csrf, request, params, authorization);

    if (!(await csrf.verify(request, single(params, 'csrf')))) {
      return new Response(renderErrorPage('This form has expired. Start again from the app.'), {
        status: 403,
        headers: PAGE_HEADERS,
      });
    }
    const chosen = new Set(params.getAll('grant_scope'));
    const approved = authorization.scopes.filter((s) => s === OPENID_SCOPE || chosen.has(s));
    if (single(params, 'decision') !== 'approve' || !approved.some((s) => s !== OPENID_SCOPE)) {
      return back({ error: 'access_denied', error_description: 'The user refused access.' });
    }
    const userId = await signedInUser(ctx, request, params);
    if (userId === null) {
      return page(ctx, csrf, request, params, authorization, 'The e-mail or password is not right.', 401, {
        username: params.get('username') ?? '',
      });
    }
    const code = await issueCode(ctx, authorization, userId, approved);
    return back({ code });
  };
}

async function trustedTarget(
  ctx: ServerContext,
  params: URLSearchParams,
): Promise<{ client: OAuthClientRecord; redirectUri: string }> {
  const clientId = single(params, 'client_id');
  if (!clientId) throw new UntrustedRequest('The request does not say which app is asking (client_id).');
  const client = await ctx.storage.oauth.clients.get(clientId);
  if (!client?.grantTypes.includes('authorization_code')) {
    throw new UntrustedRequest('The app that sent you here is not registered.');
  }
  const redirectUri = single(params, 'redirect_uri');
  if (!redirectUri || !redirectUriAllowed(redirectUri, client)) {
    throw new UntrustedRequest(
      'The app asked to send you to an address it has not registered.',
      appOf(client),
    );
  }
  return { client, redirectUri };
}

function checkRequest(
  ctx: ServerContext,
  params: URLSearchParams,
  client: OAuthClientRecord,
  redirectUri: string,
): AuthorizationRequest {
  for (const name of ECHOED) single(params, name);
  if (single(params, 'response_type') !== 'code') {
    throw oauthError('unsupported_response_type', 'Only response_type=code is supported.');
  }
  const codeChallenge = single(params, 'code_challenge') ?? null;
  const method = single(params, 'code_challenge_method');
  if (codeChallenge === null && method !== undefined) {
    throw oauthError('invalid_request', 'code_challenge_method was sent without code_challenge.');
  }
  if (codeChallenge !== null) {
    if (method !== 'S256')
      throw oauthError('invalid_request', 'Use code_challenge_method=S256; plain is refused.');
    if (!/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
      throw oauthError('invalid_request', 'code_challenge must be a base64url SHA-256 hash (43 characters).');
    }
  } else if (client.secretHash === null) {
    throw oauthError('invalid_request', 'Public clients must use PKCE (code_challenge with S256).');
  }
  const scopes = parseScopes(single(params, 'scope'));
  if (!scopes.some((s) => s !== OPENID_SCOPE))
    throw oauthError('invalid_scope', 'Ask for at least one scope.');
  for (const scope of scopes) {
    const allowed = scope === OPENID_SCOPE ? ctx.idTokens !== null : client.scopes.includes(scope);
    if (!allowed) throw oauthError('invalid_scope', `The scope ${scope} is not available to this app.`);
  }
  const nonce = single(params, 'nonce') ?? null;
  return { client, redirectUri, state: single(params, 'state'), scopes, codeChallenge, nonce };
}

async function page(
  ctx: ServerContext,
  csrf: Csrf,
  request: Request,
  params: URLSearchParams,
  authorization: AuthorizationRequest,
  error?: string,
  status = 200,
  kept: { readonly username?: string } = {},
): Promise<Response> {
  const current = (await ctx.signIn.currentUser?.(request)) ?? null;
  if (current === null && !ctx.signIn.verifyPassword) {
    return new Response(renderErrorPage('Signing in is not set up on this server.'), {
      status: 503,
      headers: PAGE_HEADERS,
    });
  }
  const { cookie, token, isNew } = await csrf.issue(request);
  const hidden: Record<string, string> = {};
  for (const name of ECHOED) {
    const value = params.get(name);
    if (value !== null) hidden[name] = value;
  }
  const view: ConsentView = {
    action: new URL(request.url).pathname,
    clientName: authorization.client.name,
    scopes: authorization.scopes
      .filter((s) => s !== OPENID_SCOPE)
      .map((name) => ({ name, description: ctx.scopes[name] ?? name })),
    hidden,
    csrfToken: token,
    askPassword: current === null,
    ...(kept.username ? { username: kept.username } : {}),
    ...(error === undefined ? {} : { error }),
  };
  const headers = new Headers(PAGE_HEADERS);
  if (isNew) {
    headers.append(
      'set-cookie',
      csrfCookieHeader(cookie, { secure: new URL(request.url).protocol === 'https:' }),
    );
  }
  return new Response((ctx.renderConsent ?? renderConsentPage)(view), { status, headers });
}

async function signedInUser(
  ctx: ServerContext,
  request: Request,
  params: URLSearchParams,
): Promise<string | null> {
  const current = await ctx.signIn.currentUser?.(request);
  if (current) return current;
  const username = params.get('username');
  const password = params.get('password');
  if (!username || !password || !ctx.signIn.verifyPassword) return null;
  return ctx.signIn.verifyPassword(username.trim(), password);
}

async function issueCode(
  ctx: ServerContext,
  authorization: AuthorizationRequest,
  userId: string,
  scopes: readonly string[],
): Promise<string> {
  const now = ctx.clock.now();
  const code = randomSecret('sbac_');
  const grantId = ctx.ids('grt');
  await ctx.storage.transaction(async (tx) => {
    // The grant exists from the start, so a replayed code can revoke it even mid-exchange.
    await tx.oauth.grants.insert({
      id: grantId,
      clientId: authorization.client.id,
      userId,
      scopes,
      createdAt: now,
      expiresAt: now + ctx.grantTtlMs,
      revokedAt: null,
    });
    await tx.oauth.codes.insert({
      codeHash: hashSecret(code),
      clientId: authorization.client.id,
      userId,
      redirectUri: authorization.redirectUri,
      scopes,
      codeChallenge: authorization.codeChallenge,
      nonce: authorization.nonce,
      grantId,
      createdAt: now,
      expiresAt: now + ctx.codeTtlMs,
      consumedAt: null,
    });
  });
  return code;
}

function redirect(target: string, query: Record<string, string>, status: number): Response {
  const url = new URL(target);
  for (const [name, value] of Object.entries(query)) url.searchParams.append(name, value);
  return new Response(null, {
    status,
    headers: { location: url.href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  });
}

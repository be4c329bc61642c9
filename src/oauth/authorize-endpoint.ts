import { anonymousPrincipal } from '../core/auth.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import type { OAuthClientRecord } from '../core/storage/index.js';
import { type RateHeaders, rateHeadersOf } from '../http/rate-limit.js';
import type { Requester } from '../http/request-context.js';
import { brandingOf } from '../internal/look/index.js';
import { isUnverified } from './client-controls.js';
import { findClient } from './client-lookup.js';
import { metadataDocumentHost } from './client-metadata-document.js';
import {
  type ConsentView,
  type ErrorPageApp,
  OAUTH_ASSETS,
  pageHeaders,
  renderConsentPage,
  renderErrorPage,
} from './consent-page.js';
import { announceCredentialChange } from './credential-changes.js';
import { type Csrf, csrfCookieHeader } from './csrf.js';
import { parseScopes, readForm, single } from './form.js';
import { oauthError, oauthErrorCodeOf } from './oauth-error.js';
import { redirectUriAllowed } from './redirect-uri.js';
import { parseResources } from './resource-indicators.js';
import { hashSecret, randomSecret } from './secrets.js';
import { OPENID_SCOPE, type ServerContext } from './server-options.js';
import { createSignInProofs, type SignedIn, type SignInProofs } from './sign-in-proof.js';

/** The authorization request once every check has passed. */
interface AuthorizationRequest {
  readonly client: OAuthClientRecord;
  readonly redirectUri: string;
  readonly state: string | undefined;
  readonly scopes: readonly string[];
  readonly codeChallenge: string | null;
  readonly nonce: string | null;
  /** The resources (RFC 8707) the token is asked for; empty for every resource. */
  readonly resources: readonly string[];
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
 * The authorization endpoint (RFC 6749 §4.1.1): GET shows the sign-in page (or, with a host session,
 * the consent page), a POST of the sign-in answers with the consent page, and the consent's POST
 * redirects back with a code, or with `error`, always with `state` and `iss` (RFC 9207).
 */
export function authorizeEndpoint(
  ctx: ServerContext,
  csrf: Csrf,
): (request: Request, context: Requester) => Promise<Response> {
  const steps: Steps = { csrf, proofs: createSignInProofs(ctx.csrfSecret) };
  return async (request, context) => {
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
      ({ client, redirectUri } = await trustedTarget(ctx, params, context));
    } catch (error) {
      const message =
        error instanceof UntrustedRequest || isSwitchboardError(error) ? error.message : 'Bad request.';
      const app = error instanceof UntrustedRequest ? error.app : undefined;
      return new Response(renderErrorPage(message, app, brandingOf(ctx.look, OAUTH_ASSETS)), {
        status: 400,
        headers: pageHeaders(ctx.look),
      });
    }
    const state = params.get('state') ?? undefined;
    const status = request.method === 'POST' ? 303 : 302;
    const back = (query: Record<string, string>): Response =>
      redirect(redirectUri, { ...query, ...(state === undefined ? {} : { state }), iss: issuer }, status);

    let authorization: AuthorizationRequest;
    try {
      authorization = checkRequest(ctx, params, client, redirectUri, issuer);
    } catch (error) {
      const message = isSwitchboardError(error) ? error.message : 'The request is not valid.';
      return back({ error: oauthErrorCodeOf(error), error_description: message });
    }

    if (request.method === 'GET') return page(ctx, steps, request, params, authorization);

    if (!(await csrf.verify(request, single(params, 'csrf')))) {
      const branding = brandingOf(ctx.look, OAUTH_ASSETS);
      return new Response(
        renderErrorPage('This form has expired. Start again from the app.', undefined, branding),
        {
          status: 403,
          headers: pageHeaders(ctx.look),
        },
      );
    }
    const refused = () => back({ error: 'access_denied', error_description: 'The user refused access.' });
    // Refuse (or Cancel on the sign-in step) needs no sign-in: nothing is shared.
    if (single(params, 'decision') === 'refuse') return refused();
    if (single(params, 'step') === 'sign_in') return signInStep(ctx, steps, context, params, authorization);

    const chosen = new Set(params.getAll('grant_scope'));
    const approved = authorization.scopes.filter((s) => s === OPENID_SCOPE || chosen.has(s));
    if (single(params, 'decision') !== 'approve' || !approved.some((s) => s !== OPENID_SCOPE))
      return refused();
    let user: string | null;
    try {
      user = await approvingUser(ctx, steps, context, params, authorization);
    } catch (error) {
      return page(ctx, steps, request, params, authorization, {
        ...refusedSignIn(error),
        username: params.get('username') ?? '',
      });
    }
    if (user === null) {
      return page(ctx, steps, request, params, authorization, {
        error: params.has('sign_in_proof')
          ? 'Your sign-in has expired. Sign in again.'
          : 'The e-mail or password is not right.',
        status: 401,
        username: params.get('username') ?? '',
      });
    }
    const code = await issueCode(ctx, authorization, user, approved);
    return back({ code });
  };
}

/** What the two steps of the page share: the form's CSRF protection and the proof of sign-in. */
interface Steps {
  readonly csrf: Csrf;
  readonly proofs: SignInProofs;
}

async function trustedTarget(
  ctx: ServerContext,
  params: URLSearchParams,
  context: Requester,
): Promise<{ client: OAuthClientRecord; redirectUri: string }> {
  const clientId = single(params, 'client_id');
  if (!clientId) throw new UntrustedRequest('The request does not say which app is asking (client_id).');
  const client = await findClient(ctx, clientId, context);
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
  issuer: string,
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
  const resources = parseResources(params, issuer);
  return { client, redirectUri, state: single(params, 'state'), scopes, codeChallenge, nonce, resources };
}

interface PageOptions {
  readonly error?: string;
  readonly status?: number;
  /** Seconds, for `Retry-After` (a sign-in refused for too many attempts). */
  readonly retryAfter?: number;
  /** The RateLimit fields of the budget that refused the sign-in. */
  readonly rateHeaders?: RateHeaders | undefined;
  /** The e-mail typed on the sign-in step, kept when it comes back with an error. */
  readonly username?: string;
  /** Set after a sign-in: the consent step, carrying the proof. */
  readonly signedIn?: { readonly user: SignedIn; readonly proof: string };
}

/** The sign-in step, or the consent step when the host has a session or the user just signed in. */
async function page(
  ctx: ServerContext,
  steps: Steps,
  request: Request,
  params: URLSearchParams,
  authorization: AuthorizationRequest,
  options: PageOptions = {},
): Promise<Response> {
  const current = options.signedIn ? null : ((await ctx.signIn.currentUser?.(request)) ?? null);
  if (!options.signedIn && current === null && !ctx.signIn.verifyPassword) {
    const branding = brandingOf(ctx.look, OAUTH_ASSETS);
    return new Response(renderErrorPage('Signing in is not set up on this server.', undefined, branding), {
      status: 503,
      headers: pageHeaders(ctx.look),
    });
  }
  const { cookie, token, isNew } = await steps.csrf.issue(request);
  const hidden: Record<string, string | readonly string[]> = {};
  for (const name of ECHOED) {
    const value = params.get(name);
    if (value !== null) hidden[name] = value;
  }
  // resource may repeat (RFC 8707 §2): each one goes back.
  if (params.has('resource')) hidden.resource = params.getAll('resource');
  const username = options.signedIn?.user.username ?? options.username;
  const view: ConsentView = {
    action: new URL(request.url).pathname,
    clientName: authorization.client.name,
    ...(isUnverified(authorization.client) ? { unverified: unverifiedOf(authorization) } : {}),
    scopes: authorization.scopes
      .filter((s) => s !== OPENID_SCOPE)
      .map((name) => ({ name, description: ctx.scopes[name] ?? name })),
    hidden,
    csrfToken: token,
    askPassword: !options.signedIn && current === null,
    ...(options.signedIn ? { signInProof: options.signedIn.proof } : {}),
    ...(username ? { username } : {}),
    ...(options.error === undefined ? {} : { error: options.error }),
    branding: brandingOf(ctx.look, OAUTH_ASSETS),
  };
  const headers = new Headers(pageHeaders(ctx.look));
  if (options.retryAfter !== undefined) headers.set('retry-after', String(options.retryAfter));
  for (const [name, value] of Object.entries(options.rateHeaders ?? {})) headers.set(name, value);
  if (isNew) {
    headers.append(
      'set-cookie',
      csrfCookieHeader(cookie, { secure: new URL(request.url).protocol === 'https:' }),
    );
  }
  return new Response((ctx.renderConsent ?? renderConsentPage)(view), {
    status: options.status ?? 200,
    headers,
  });
}

/** Where the answer goes and, for a client metadata document, where the app describes itself. */
function unverifiedOf(authorization: AuthorizationRequest): NonNullable<ConsentView['unverified']> {
  const document = metadataDocumentHost(authorization.client);
  return { host: new URL(authorization.redirectUri).host, ...(document ? { document } : {}) };
}

/** The sign-in step's answer: the consent step with a proof of who signed in, or the sign-in again. */
async function signInStep(
  ctx: ServerContext,
  steps: Steps,
  context: Requester,
  params: URLSearchParams,
  authorization: AuthorizationRequest,
): Promise<Response> {
  const { request } = context;
  const username = (params.get('username') ?? '').trim();
  const password = params.get('password') ?? '';
  let userId: string | null;
  try {
    userId = await checkPassword(ctx, context, username, password);
  } catch (error) {
    return page(ctx, steps, request, params, authorization, { ...refusedSignIn(error), username });
  }
  if (userId === null) {
    return page(ctx, steps, request, params, authorization, {
      error: 'The e-mail or password is not right.',
      status: 401,
      username,
    });
  }
  const user = { userId, username };
  const proof = await steps.proofs.issue(user, bindingOf(steps, request, authorization), ctx.clock.now());
  return page(ctx, steps, request, params, authorization, { signedIn: { user, proof } });
}

/** Who approves: the host's session, the proof from the sign-in step, or a one-form page's password. */
async function approvingUser(
  ctx: ServerContext,
  steps: Steps,
  context: Requester,
  params: URLSearchParams,
  authorization: AuthorizationRequest,
): Promise<string | null> {
  const { request } = context;
  const current = await ctx.signIn.currentUser?.(request);
  if (current) return current;
  const proof = single(params, 'sign_in_proof');
  if (proof !== undefined) {
    const binding = bindingOf(steps, request, authorization);
    return (await steps.proofs.verify(proof, binding, ctx.clock.now()))?.userId ?? null;
  }
  return checkPassword(ctx, context, (params.get('username') ?? '').trim(), params.get('password') ?? '');
}

/**
 * A password sign-in: the address's `sign-in` budget (with rate limits), then the host's check behind
 * the lockout. The user, or null for a wrong e-mail or password; throws `rate_limited` when the
 * address or the username has had too many attempts.
 */
async function checkPassword(
  ctx: ServerContext,
  context: Requester,
  username: string,
  password: string,
): Promise<string | null> {
  if (!username || !password || !ctx.signIn.verifyPassword) return null;
  await ctx.rateLimit?.take(context, anonymousPrincipal, 'sign-in');
  return ctx.signIn.verifyPassword(username, password);
}

/** The sign-in step again, saying when to try again (429), for a sign-in refused for too many attempts. */
function refusedSignIn(error: unknown): Pick<PageOptions, 'error' | 'status' | 'retryAfter' | 'rateHeaders'> {
  if (!isSwitchboardError(error) || error.code !== 'rate_limited') throw error;
  return {
    error: error.message,
    status: 429,
    retryAfter: error.retryAfter ?? 1,
    rateHeaders: rateHeadersOf(error),
  };
}

function bindingOf(steps: Steps, request: Request, authorization: AuthorizationRequest) {
  // Only after csrf.verify, which requires a well-formed cookie.
  return { clientId: authorization.client.id, browser: steps.csrf.browserOf(request) ?? '' };
}

async function issueCode(
  ctx: ServerContext,
  authorization: AuthorizationRequest,
  userId: string,
  scopes: readonly string[],
): Promise<string> {
  const now = ctx.clock.now();
  const code = randomSecret('sbac_');
  const clientId = authorization.client.id;
  const expiresAt = now + ctx.grantTtlMs;
  const widenedId = await ctx.storage.transaction(async (tx) => {
    // One grant per user and app: consenting again widens the live one (what the user has granted
    // this app, over every consent), so they see the app once and revoking it ends all its tokens.
    const [live] = await tx.oauth.grants.list({ userId, clientId, live: { now } });
    const widened =
      live &&
      (await tx.oauth.grants.widen(
        live.id,
        {
          scopes: [...new Set([...live.scopes, ...scopes])],
          resources: unionOfResources(live.resources ?? [], authorization.resources),
          expiresAt: Math.max(live.expiresAt, expiresAt),
        },
        now,
      ));
    const grantId = widened ? widened.id : ctx.ids('grt');
    // The grant exists from the start, so a replayed code can revoke it even mid-exchange.
    if (!widened)
      await tx.oauth.grants.insert({
        id: grantId,
        clientId,
        userId,
        scopes,
        ...(authorization.resources.length ? { resources: authorization.resources } : {}),
        createdAt: now,
        expiresAt,
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
      resources: authorization.resources,
      createdAt: now,
      expiresAt: now + ctx.codeTtlMs,
      consumedAt: null,
    });
    return widened ? widened.id : null;
  });
  // Tokens keep their own scopes, but a guard holding the grant's reads it again all the same.
  if (widenedId !== null) await announceCredentialChange(ctx.bus, ctx.logger, { grant: widenedId });
  return code;
}

/** Resources of a widened grant: none named on either side means every resource. */
function unionOfResources(before: readonly string[], now: readonly string[]): string[] {
  return before.length && now.length ? [...new Set([...before, ...now])] : [];
}

function redirect(target: string, query: Record<string, string>, status: number): Response {
  const url = new URL(target);
  for (const [name, value] of Object.entries(query)) url.searchParams.append(name, value);
  return new Response(null, {
    status,
    headers: { location: url.href, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  });
}

/**
 * The budgets of the endpoints that authenticate a client (token, introspection, revocation): failed
 * authentications are charged to the caller's address, one budget for the three endpoints, and a
 * client's token budget is spent only once the request has authenticated as it. So guessing a secret,
 * or naming a new client on each request, meets a budget, and nobody spends another's.
 */
import { anonymousPrincipal } from '../core/auth.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import type { OAuthClientRecord } from '../core/storage/index.js';
import { type RateClass, type RateHeaders, type RateLimiter, rateHeadersOf } from '../http/rate-limit.js';
import type { Requester } from '../http/request-context.js';
import { authenticateClient } from './client-auth.js';
import type { ServerContext } from './server-options.js';

/** A client that authenticated, and the RateLimit fields of its caller's address. */
export interface AuthenticatedClient {
  readonly client: OAuthClientRecord;
  readonly limits: RateHeaders | undefined;
}

/**
 * {@link authenticateClient} within the address's `failed-auth` budget. A unit is taken before the
 * check and given back when it passes, as the sign-in lockout does: concurrent guesses never get more
 * than the budget checked, and a spent address is refused (429) without its credentials being read.
 */
export async function authenticateWithinBudget(
  ctx: ServerContext,
  context: Requester,
  params: URLSearchParams,
): Promise<AuthenticatedClient> {
  const { request } = context;
  const limiter = ctx.rateLimit;
  if (!limiter) return { client: await authenticateClient(ctx, request, params), limits: undefined };
  const address = limiter.callerOf(context, anonymousPrincipal);
  const limits = await takeBudget(limiter, address, 'failed-auth');
  let client: OAuthClientRecord;
  try {
    client = await authenticateClient(ctx, request, params);
  } catch (error) {
    throw withRateHeaders(error, limits);
  }
  return { client, limits: await limiter.takeFor(address, 'failed-auth', -1) };
}

/**
 * The token budget of a client that authenticated: a confidential client's own, which only the holder
 * of its secret spends; a public client's per address, since naming it is all it takes.
 */
export function takeTokenBudget(
  limiter: RateLimiter,
  context: Requester,
  client: OAuthClientRecord,
): Promise<RateHeaders> {
  const owner =
    client.secretHash === null
      ? `client:${client.id}:${limiter.callerOf(context, anonymousPrincipal)}`
      : `client:${client.id}`;
  return takeBudget(limiter, owner, 'token');
}

/**
 * The address's budget of dynamic client registrations (class `register`): taken before the request is
 * read, so failed attempts count too and nobody can fill the client table from one address.
 */
export function takeRegistrationBudget(limiter: RateLimiter, context: Requester): Promise<RateHeaders> {
  return takeBudget(limiter, limiter.callerOf(context, anonymousPrincipal), 'register');
}

/** An error with the RateLimit fields of the budget it was charged to, unless it has its own. */
export function withRateHeaders(error: unknown, limits: RateHeaders | undefined): unknown {
  if (limits && isSwitchboardError(error) && !rateHeadersOf(error))
    Object.assign(error, { rateHeaders: limits });
  return error;
}

/** Takes from a budget; a refusal in OAuth's error format (RFC 6749 §5.2), with the wait and the fields. */
async function takeBudget(limiter: RateLimiter, caller: string, cls: RateClass): Promise<RateHeaders> {
  try {
    return await limiter.takeFor(caller, cls);
  } catch (error) {
    if (!isSwitchboardError(error) || error.code !== 'rate_limited') throw error;
    const refusal = new SwitchboardError('rate_limited', error.message, {
      retryAfter: error.retryAfter ?? 1,
      details: [{ field: 'error', code: 'temporarily_unavailable', message: error.message }],
    });
    throw Object.assign(refusal, { rateHeaders: rateHeadersOf(error) });
  }
}

/**
 * Request budgets per caller and class of operation (GCRA over the storage's `RateLimitStore`, so every
 * instance on one storage shares them), and the IETF RateLimit fields every answer carries
 * (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` and `RateLimit`).
 */
import type { Principal } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import { type Clock, systemClock } from '../core/runtime.js';
import type { RateDecision, RateLimitStore, RateRule } from '../core/storage/index.js';
import { clientAddressOf } from './client-address.js';

/** The classes of operation budgets are kept for: REST reads and writes, GraphQL by field selections, token requests. */
export type RateClass = 'read' | 'write' | 'graphql' | 'token';

/** Options of {@link createRateLimiter}. */
export interface RateLimitOptions {
  readonly store: RateLimitStore;
  /**
   * Per class: `limit` per `windowMs`. Defaults: REST reads 600 a minute, writes 120 a minute; GraphQL
   * 20,000 field selections a minute (a query costs the fields it selects, fragments expanded); token
   * requests 60 a minute per client.
   */
  readonly rules?: Partial<Record<RateClass, RateRule>>;
  /**
   * How many proxies in front of the server append to `X-Forwarded-For` (default 0: the header is not
   * trusted and callers without credentials are told apart by their peer address).
   */
  readonly trustedProxies?: number;
  readonly clock?: Clock;
}

const NOUNS: Readonly<Record<RateClass, string>> = {
  read: 'reads',
  write: 'writes',
  graphql: 'GraphQL field selections',
  token: 'token requests',
};

/** The budgets when none are given. */
export const DEFAULT_RATE_RULES: Readonly<Record<RateClass, RateRule>> = {
  read: { limit: 600, windowMs: 60_000 },
  write: { limit: 120, windowMs: 60_000 },
  graphql: { limit: 20_000, windowMs: 60_000 },
  token: { limit: 60, windowMs: 60_000 },
};

/** Takes from a caller's budget; answers the headers to send, or throws `rate_limited` (429). */
export interface RateLimiter {
  take(request: Request, principal: Principal, cls: RateClass, cost?: number): Promise<Headers>;
}

export function createRateLimiter(options: RateLimitOptions): RateLimiter {
  const rules = { ...DEFAULT_RATE_RULES, ...options.rules };
  const clock = options.clock ?? systemClock;
  return {
    async take(request, principal, cls, cost = 1) {
      const now = clock.now();
      const rule = rules[cls];
      const key = `${cls}:${callerOf(request, principal, options.trustedProxies ?? 0)}`;
      const decision = await options.store.take(key, rule, cost, now);
      const headers = rateHeaders(cls, rule, decision);
      if (decision.allowed) return headers;
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw Object.assign(
        new SwitchboardError(
          'rate_limited',
          `Too many ${NOUNS[cls]}: ${rule.limit} per ${rule.windowMs / 1000} s are allowed. Retry in ${seconds} s.`,
          { retryAfter: seconds },
        ),
        { headers },
      );
    },
  };
}

/** Who a budget belongs to: the API key or OAuth client (and user), or the network address. */
export function callerOf(request: Request, principal: Principal, trustedProxies: number): string {
  if (principal.userId !== undefined) return `user:${principal.clientId ?? '-'}:${principal.userId}`;
  if (principal.subject && principal.subject !== 'anonymous' && principal.kind !== 'anonymous')
    return `${principal.kind}:${principal.subject}`;
  return `ip:${clientAddressOf(request, trustedProxies)}`;
}

/** `RateLimit-Policy: "read";q=600;w=60` and `RateLimit: "read";r=599;t=1`. */
export function rateHeaders(cls: RateClass, rule: RateRule, decision: RateDecision): Headers {
  return new Headers({
    'ratelimit-policy': `"${cls}";q=${rule.limit};w=${Math.ceil(rule.windowMs / 1000)}`,
    ratelimit: `"${cls}";r=${decision.remaining};t=${Math.ceil(decision.resetMs / 1000)}`,
  });
}

/** The RateLimit fields a refusal carries, if it came from a budget. */
export function rateHeadersOf(error: unknown): Headers | undefined {
  return (error as { headers?: unknown } | null)?.headers instanceof Headers
    ? (error as { headers: Headers }).headers
    : undefined;
}

/**
 * Request budgets per caller and class of operation (GCRA over the storage's `RateLimitStore`, so every
 * instance on one storage shares them), and the IETF RateLimit fields every answer carries
 * (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` and `RateLimit`).
 */
import type { Principal } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import { gcra } from '../core/rate-limits/gcra.js';
import type { Clock, Runtime } from '../core/runtime.js';
import type { RateDecision, RateLimitStore, RateRule } from '../core/storage/index.js';
import { clientAddressOf } from './client-address.js';
import type { Requester } from './request-context.js';

/**
 * The classes of operation budgets are kept for: REST reads and writes, GraphQL by cost, token
 * requests, GraphQL subscriptions started (WebSocket or Server-Sent Events), password sign-ins per address, messages
 * per WebSocket (counted in the process that holds the socket), and failed client authentications per
 * address (token, introspection and revocation endpoints).
 */
export type RateClass =
  | 'read'
  | 'write'
  | 'graphql'
  | 'token'
  | 'subscribe'
  | 'sign-in'
  | 'message'
  | 'failed-auth'
  | 'register';

/** Options of {@link createRateLimiter}. */
/**
 * What the budgets read from the runtime: the storage's rate-limit store (every instance on the storage
 * shares the budgets), the clock, and the telemetry refusals are counted in
 * (`switchboard.rate_limit.refusals`, by class).
 */
export interface RateLimitRuntime extends Pick<Runtime, 'clock' | 'telemetry'> {
  readonly storage: { readonly rateLimits: RateLimitStore };
}

/** Settings of the budgets, what `createSwitchboard`'s `rateLimits` takes. */
export interface RateLimitConfig {
  /**
   * Per class: `limit` per `windowMs`, a whole `limit` at once at most. Defaults: REST reads 1,000 per
   * 10 s, writes 250 per 10 s; GraphQL 50,000 units of cost per 10 s (a query costs its fields, a list
   * field its selection times its `limit`; a refused document its tokens; over HTTP, Server-Sent Events
   * and WebSocket alike); token requests 60 a minute per client; `subscribe` 60 subscriptions started
   * over WebSocket or Server-Sent Events a minute per caller; `sign-in` 20 password
   * sign-ins a minute per address (authorization page and console); `message` 600 WebSocket messages a
   * minute per socket (beyond it the socket is closed with 1008); `failed-auth` 20 failed client
   * authentications a minute per address, one budget for the token, introspection and revocation
   * endpoints; `register` 10 dynamic client registrations an hour per address.
   */
  readonly rules?: Partial<Record<RateClass, RateRule>>;
  /**
   * How many proxies in front of the server append to `X-Forwarded-For` (default 0: the header is not
   * trusted and callers without credentials are told apart by their peer address).
   */
  readonly trustedProxies?: number;
}

const NOUNS: Readonly<Record<RateClass, string>> = {
  read: 'reads',
  write: 'writes',
  graphql: 'units of GraphQL query cost',
  token: 'token requests',
  subscribe: 'subscriptions',
  'sign-in': 'sign-in attempts',
  message: 'messages',
  'failed-auth': 'failed client authentications',
  register: 'client registrations',
};

/**
 * The budgets when none are given, sized for a chatbot backend serving many conversations with one key
 * (100 reads and 25 writes a second, as large APIs allow) while stopping a loop or a leaked key from
 * taking the service: REST reads 1,000 and writes 250 per 10 s, GraphQL 50,000 units of cost per
 * 10 s, 60 token requests a minute per client, 60 subscriptions a minute per caller, 20
 * password sign-ins a minute per address, 600 messages a minute per WebSocket, 20 failed client
 * authentications a minute per address, 10 dynamic client registrations an hour per address.
 */
export const DEFAULT_RATE_RULES: Readonly<Record<RateClass, RateRule>> = {
  read: { limit: 1_000, windowMs: 10_000 },
  write: { limit: 250, windowMs: 10_000 },
  graphql: { limit: 50_000, windowMs: 10_000 },
  token: { limit: 60, windowMs: 60_000 },
  subscribe: { limit: 60, windowMs: 60_000 },
  'sign-in': { limit: 20, windowMs: 60_000 },
  message: { limit: 600, windowMs: 60_000 },
  'failed-auth': { limit: 20, windowMs: 60_000 },
  register: { limit: 10, windowMs: 3_600_000 },
};

/**
 * Takes from a caller's budget; answers the headers to send, or throws `rate_limited` (429) with
 * `retryAfter` in seconds and the RateLimit fields as `rateHeaders`.
 */
export interface RateLimiter {
  /** The rule of each class in force: the defaults with the options' overrides. */
  readonly rules: Readonly<Record<RateClass, RateRule>>;
  /** Takes from the budget of the caller of a request: its principal, else its address. */
  take(context: Requester, principal: Principal, cls: RateClass, cost?: number): Promise<RateHeaders>;
  /**
   * Who a request's budget belongs to ({@link callerOf} with the limiter's trusted proxies), for a
   * caller whose budget is taken from later without a request (a WebSocket's, found at connection_init).
   */
  callerOf(context: Requester, principal: Principal): string;
  /** {@link RateLimiter.take} for a caller found before by {@link RateLimiter.callerOf}. */
  takeFor(caller: string, cls: RateClass, cost?: number): Promise<RateHeaders>;
  /**
   * A bucket of `cls` kept in this process only, with no storage round trip: for counts too frequent
   * to share, such as one socket's messages.
   */
  local(cls: RateClass): LocalBucket;
}

/** A GCRA bucket in memory (see {@link RateLimiter.local}). */
export interface LocalBucket {
  readonly rule: RateRule;
  /** Whether `cost` units (default 1) were there; they are taken if so. */
  take(cost?: number): boolean;
}

/**
 * The request budgets over a storage's `RateLimitStore`.
 *
 * @example
 * const limiter = createRateLimiter(runtime, { rules: { read: { limit: 100, windowMs: 60_000 } } });
 * const headers = await limiter.take(context, principal, 'read'); // or throws `rate_limited`
 */
export function createRateLimiter(runtime: RateLimitRuntime, options: RateLimitConfig = {}): RateLimiter {
  const rules = { ...DEFAULT_RATE_RULES, ...options.rules };
  const { clock } = runtime;
  const store = runtime.storage.rateLimits;
  const trustedProxies = options.trustedProxies ?? 0;
  const { rateLimitRefusals } = runtime.telemetry;
  const leases = store.remote ? createLeases(store) : undefined;
  // Each class's policy field is the same on every answer: written once.
  const policies = Object.fromEntries(
    Object.entries(rules).map(([cls, rule]) => [cls, policyField(cls, rule)]),
  ) as Record<RateClass, string>;
  async function takeFor(caller: string, cls: RateClass, cost = 1): Promise<RateHeaders> {
    const rule = rules[cls];
    const key = `${cls}:${caller}`;
    const now = clock.now();
    // Units given back (a negative cost) go to the store itself: a lease would give them up.
    const decision =
      leases && cost > 0 && rule.windowMs <= MAX_LEASED_WINDOW_MS
        ? await leases.take(key, rule, cost, now)
        : await store.take(key, rule, cost, now);
    const headers = { 'ratelimit-policy': policies[cls], ratelimit: limitField(cls, decision) };
    if (decision.allowed) return headers;
    rateLimitRefusals.add(1, { 'switchboard.rate_limit.class': cls });
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw Object.assign(
      new SwitchboardError('rate_limited', `${describeLimit(cls, rule)} Retry in ${seconds} s.`, {
        retryAfter: seconds,
      }),
      { rateHeaders: headers },
    );
  }
  return {
    rules,
    take: (context, principal, cls, cost) => takeFor(callerOf(context, principal, trustedProxies), cls, cost),
    callerOf: (context, principal) => callerOf(context, principal, trustedProxies),
    takeFor,
    local: (cls) => new MemoryBucket(rules[cls], clock),
  };
}

/** `Too many reads: 600 per 60 s are allowed.` — the limit of a class, in words a person can act on. */
export function describeLimit(cls: RateClass, rule: RateRule): string {
  return `Too many ${NOUNS[cls]}: ${rule.limit} per ${rule.windowMs / 1000} s are allowed.`;
}

/** How long units taken in a batch may be spent in process; those left then are given up. */
const LEASE_MS = 1_000;
/**
 * Batches only for windows that refill a batch (1% of the budget) within a lease, so the units given up
 * when a lease ends never outrun the refill: an hour's budget of rare events is taken unit by unit.
 */
const MAX_LEASED_WINDOW_MS = 100 * LEASE_MS;
const PRUNE_EVERY = 1024;

/**
 * Units taken from a shared bucket in batches of 1% of its budget (at least the cost asked), then spent
 * here without a round trip: a hundred requests of one caller make one take instead of a hundred. The
 * budget stays shared, since every unit spent was taken from the store first. The price is exactness
 * near the limit, by at most a batch per instance: units one instance holds cannot serve another, so a
 * caller may be refused up to 1% early. A refused batch falls back to the exact cost.
 */
function createLeases(store: RateLimitStore) {
  const held = new Map<string, { units: number; until: number; decision: RateDecision }>();
  // One batch in flight per key: the requests that find the lease spent meanwhile wait for it, rather
  // than each taking a batch at once (fifty batches would overrun the window and refuse callers within it).
  const fetching = new Map<string, Promise<void>>();
  let takes = 0;
  return {
    async take(key: string, rule: RateRule, cost: number, now: number): Promise<RateDecision> {
      if (++takes % PRUNE_EVERY === 0) for (const [k, lease] of held) if (lease.until <= now) held.delete(k);
      for (;;) {
        const lease = held.get(key);
        if (lease && lease.until > now && lease.units >= cost) {
          lease.units -= cost;
          return withMore(lease.decision, lease.units);
        }
        const inFlight = fetching.get(key);
        if (!inFlight) break;
        await inFlight;
      }
      let done!: () => void;
      fetching.set(key, new Promise<void>((resolve) => (done = resolve)));
      try {
        const batch = Math.max(cost, Math.floor(rule.limit / 100));
        let taken = batch;
        let decision = await store.take(key, rule, batch, now);
        if (!decision.allowed && batch > cost) {
          taken = cost;
          decision = await store.take(key, rule, cost, now);
        }
        if (!decision.allowed) return decision;
        const current = held.get(key);
        const units = taken - cost + (current && current.until > now ? current.units : 0);
        if (units > 0) held.set(key, { units, until: now + LEASE_MS, decision });
        else held.delete(key);
        return withMore(decision, units);
      } finally {
        fetching.delete(key);
        done();
      }
    },
  };
}

/** A class, so a socket's bucket is one small object: a rule, a clock and one number. */
class MemoryBucket implements LocalBucket {
  #tat: number | undefined;

  constructor(
    readonly rule: RateRule,
    readonly clock: Clock,
  ) {}

  take(cost = 1): boolean {
    const { decision, tat } = gcra(this.#tat, this.rule, cost, this.clock.now());
    this.#tat = tat;
    return decision.allowed;
  }
}

/** Who a budget belongs to: the API key or OAuth client (and user), or the network address. */
export function callerOf(context: Requester, principal: Principal, trustedProxies: number): string {
  if (principal.userId !== undefined) return `user:${principal.clientId ?? '-'}:${principal.userId}`;
  if (principal.subject && principal.subject !== 'anonymous' && principal.kind !== 'anonymous')
    return `${principal.kind}:${principal.subject}`;
  return `ip:${clientAddressOf(context, trustedProxies)}`;
}

/** The two RateLimit fields, by lower-case name: a plain object, cheaper than `Headers` on every answer. */
export type RateHeaders = Readonly<Record<'ratelimit-policy' | 'ratelimit', string>>;

/**
 * `RateLimit-Policy: "read";q=1000;w=10` and `RateLimit: "read";r=999;t=1`: a class's budget, or another
 * policy kept in the rate-limit store (the sign-in lockout's).
 */
export function rateHeaders(
  policy: RateClass | 'sign-in-lockout',
  rule: RateRule,
  decision: RateDecision,
): RateHeaders {
  return { 'ratelimit-policy': policyField(policy, rule), ratelimit: limitField(policy, decision) };
}

const policyField = (policy: string, rule: RateRule): string =>
  `"${policy}";q=${rule.limit};w=${Math.ceil(rule.windowMs / 1000)}`;
const limitField = (policy: string, decision: RateDecision): string =>
  `"${policy}";r=${decision.remaining};t=${Math.ceil(decision.resetMs / 1000)}`;

/** The RateLimit fields a refusal carries, if it came from a budget. */
export function rateHeadersOf(error: unknown): RateHeaders | undefined {
  return (error as { rateHeaders?: RateHeaders } | null)?.rateHeaders;
}

/**
 * The decision with `units` more remaining (those a lease still holds). Spelled out, not
 * `{ ...decision, remaining }`: Node 20 takes a slow path for members after a spread, on every request.
 */
const withMore = (decision: RateDecision, units: number): RateDecision => ({
  allowed: decision.allowed,
  remaining: decision.remaining + units,
  resetMs: decision.resetMs,
  retryAfterMs: decision.retryAfterMs,
});

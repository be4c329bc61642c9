/**
 * Request budgets shared by every instance: one bucket per key (a caller and a class of operation),
 * kept as the generic cell rate algorithm keeps it — one time, the bucket's theoretical arrival time.
 */

/** How fast a bucket refills and how much it holds: `limit` units per `windowMs`, all of them at once at most. */
export interface RateRule {
  readonly limit: number;
  readonly windowMs: number;
}

/** What taking from a bucket answered. */
export interface RateDecision {
  readonly allowed: boolean;
  /** Units left right after this call (0 when refused). */
  readonly remaining: number;
  /** Milliseconds until the bucket is full again. */
  readonly resetMs: number;
  /** When refused: milliseconds until `cost` units are there. */
  readonly retryAfterMs: number;
}

/**
 * Buckets by key. `take` is atomic per key across every instance that shares the store (one round trip
 * on PostgreSQL); a refused take changes nothing.
 */
export interface RateLimitStore {
  /**
   * Takes `cost` units from the bucket of `key` if they are there. A negative `cost` gives units back,
   * never beyond a full bucket, and is always allowed: a check that takes before it knows the outcome
   * (the sign-in lockout takes one unit per attempt) returns the unit when the attempt succeeds.
   */
  take(key: string, rule: RateRule, cost: number, now: number): Promise<RateDecision>;
  /**
   * True when a take costs a network round trip (PostgreSQL, Redis): request budgets then take units
   * in small batches (1% of a budget) and spend them in process, so most requests make none.
   */
  readonly remote?: boolean;
}

import type { RateDecision, RateRule } from '../storage/rate-limits.js';

/**
 * The generic cell rate algorithm: a bucket is one time, its theoretical arrival time (`tat`). Each
 * unit moves it on by the emission interval (window / limit); a take is allowed while the new `tat`
 * stays within one window of now, so a full window's worth may come at once and then at the rate.
 * A negative cost gives units back, never beyond a full bucket (the `tat` goes no earlier than now),
 * and is always allowed. Answers the decision and the `tat` to store (unchanged when refused).
 */
export function gcra(
  stored: number | undefined,
  rule: RateRule,
  cost: number,
  now: number,
): { decision: RateDecision; tat: number } {
  const interval = rule.windowMs / rule.limit;
  const tat = Math.max(stored ?? now, now);
  const next = Math.max(tat + cost * interval, now);
  const allowed = next - now <= rule.windowMs;
  const kept = allowed ? next : tat;
  return {
    tat: kept,
    decision: {
      allowed,
      remaining: allowed ? Math.max(0, Math.floor((rule.windowMs - (kept - now)) / interval)) : 0,
      resetMs: Math.max(0, Math.ceil(kept - now)),
      retryAfterMs: allowed ? 0 : Math.ceil(next - rule.windowMs - now),
    },
  };
}

/**
 * When each attempt of a delivery is made, relative to the previous failure. The default is the one
 * the largest open-source sender (Svix) uses: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h —
 * eight attempts over about 27.5 hours — with ±20% jitter so retries of many deliveries spread out.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** How many attempts a delivery gets and how long to wait after each failure. */
export interface RetrySchedule {
  /** Total attempts, 3 to 10. */
  readonly attempts: number;
  /** Delay before attempt n+1 after attempt n failed (index n), jitter not applied. */
  delayAfter(attempt: number): number;
  /** The ± fraction of jitter applied to each delay (default 0.2). */
  readonly jitter?: number;
}

/** Options of {@link retrySchedule}: the number of attempts and the delays. */
export interface RetryScheduleOptions {
  /** Total attempts, 3 to 10 (default 8). Beyond the default's eight, the last delay repeats. */
  readonly attempts?: number;
  /** Delays before each attempt; the first is the delay of attempt 1 (normally 0). */
  readonly delaysMs?: readonly number[];
}

/**
 * Makes a {@link RetrySchedule} from {@link DEFAULT_RETRY_DELAYS_MS} or your own delays; throws a
 * `RangeError` unless `attempts` is a whole number from 3 to 10.
 *
 * @example
 * const schedule = retrySchedule({ attempts: 5 }); // immediately, 5 s, 5 min, 30 min, 2 h
 * schedule.delayAfter(1); // 5_000
 */
export function retrySchedule(options: RetryScheduleOptions = {}): RetrySchedule {
  const attempts = options.attempts ?? 8;
  if (!Number.isInteger(attempts) || attempts < 3 || attempts > 10) {
    throw new RangeError(`Webhook attempts must be a whole number from 3 to 10 (got ${attempts}).`);
  }
  const delays = options.delaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  return {
    attempts,
    delayAfter(attempt) {
      return delays[Math.min(attempt, delays.length - 1)] ?? 0;
    },
  };
}

/**
 * The schedule of an endpoint with its own `retrySchedule` (the delays before each retry, bounded by
 * `RETRY_SCHEDULE_BOUNDS` where it is set): the first attempt at once, then one retry per delay.
 *
 * @example
 * const schedule = endpointRetrySchedule([100, 200]); // 3 attempts: at once, +100 ms, +200 ms
 * schedule.delayAfter(2); // 200
 */
export function endpointRetrySchedule(retryDelaysMs: readonly number[]): RetrySchedule {
  return {
    attempts: retryDelaysMs.length + 1,
    // Delays an operator chose for one receiver are kept as chosen.
    jitter: 0,
    delayAfter: (attempt) => retryDelaysMs[Math.min(attempt, retryDelaysMs.length) - 1] ?? 0,
  };
}

/** ±`fraction` jitter: `random` is in [0, 1). */
export function withJitter(delayMs: number, random: () => number, fraction = 0.2): number {
  return Math.round(delayMs * (1 - fraction + 2 * fraction * random()));
}

/**
 * A `Retry-After` header (seconds or an HTTP date) as milliseconds from `now`; null when absent or
 * unreadable. [RFC 9110 §10.2.3](https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3)
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

import type { AttemptResult } from './send.js';

/**
 * How many deliveries of each endpoint may be in flight, learnt from its answers (additive increase,
 * multiplicative decrease, as TCP and Svix-style senders do): every endpoint starts at `initial`; quick
 * 2xx answers widen it by one per window of successes, up to `max`; a 429, a 5xx, a timeout, a network
 * error or a slow answer halves it; a `Retry-After` drops it to one.
 */
export interface EndpointLimits {
  /** Notes one attempt's result for its endpoint. */
  observe(endpointId: string, result: AttemptResult): void;
  /** The caps that differ from `initial`, to pass to the claim. */
  caps(): ReadonlyMap<string, number>;
  /** Forgets an endpoint (deleted or disabled). */
  forget(endpointId: string): void;
}

export interface EndpointLimitOptions {
  readonly initial: number;
  readonly max: number;
  /** Answers slower than this narrow the window instead of widening it (default 5 s). */
  readonly slowMs?: number;
  /** Answers quicker than this widen it (default 1 s). */
  readonly quickMs?: number;
}

export function createEndpointLimits(options: EndpointLimitOptions): EndpointLimits {
  const { initial } = options;
  const max = Math.max(options.max, initial);
  const slowMs = options.slowMs ?? 5_000;
  const quickMs = options.quickMs ?? 1_000;
  /** The window per endpoint, fractional while it grows; endpoints at `initial` are not kept. */
  const windows = new Map<string, number>();
  const caps = new Map<string, number>();

  function set(endpointId: string, window: number): void {
    if (window === initial) windows.delete(endpointId);
    else windows.set(endpointId, window);
    const cap = Math.floor(window);
    if (cap === initial) caps.delete(endpointId);
    else caps.set(endpointId, cap);
  }

  return {
    observe(endpointId, result) {
      const window = windows.get(endpointId) ?? initial;
      if (result.retryAfterMs !== null) return set(endpointId, 1);
      if (result.ok && result.durationMs < quickMs) {
        if (window < max) set(endpointId, Math.min(max, window + 1 / Math.floor(window)));
        return;
      }
      const overloaded =
        result.statusCode === null ||
        result.statusCode === 429 ||
        result.statusCode >= 500 ||
        result.durationMs >= slowMs;
      if (overloaded) set(endpointId, Math.max(1, Math.floor(window / 2)));
    },
    caps: () => caps,
    forget(endpointId) {
      windows.delete(endpointId);
      caps.delete(endpointId);
    },
  };
}

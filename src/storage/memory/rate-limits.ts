import { gcra } from '../../core/rate-limits/gcra.js';
import type { RateLimitStore } from '../../core/storage/index.js';

/** Key → theoretical arrival time. Buckets that are full again are dropped as they are met. */
export type RateLimitState = Map<string, number>;

const SWEEP_EVERY = 1024;

export function memoryRateLimitStore(state: RateLimitState): RateLimitStore {
  let takes = 0;
  return {
    async take(key, rule, cost, now) {
      // A full bucket needs no entry: forget those now and then, so idle callers cost no memory.
      if (++takes % SWEEP_EVERY === 0) for (const [k, tat] of state) if (tat <= now) state.delete(k);
      const { decision, tat } = gcra(state.get(key), rule, cost, now);
      if (tat > now) state.set(key, tat);
      else state.delete(key);
      return decision;
    },
  };
}

import type { Timers } from '../../src/core/runtime.js';

/** Timers the test fires by hand, on a time of their own. */
export interface ManualTimers extends Timers {
  /** Timers waiting. */
  readonly pending: number;
  /** Moves on by `ms`, firing each timer that falls due in order; lets the work each starts settle. */
  advance(ms: number): Promise<void>;
}

export function manualTimers(): ManualTimers {
  let now = 0;
  let last = 0;
  const waiting = new Map<number, { readonly at: number; readonly callback: () => void }>();
  return {
    get pending() {
      return waiting.size;
    },
    setTimeout(callback, ms) {
      waiting.set(++last, { at: now + ms, callback });
      return last;
    },
    clearTimeout(handle) {
      waiting.delete(handle as number);
    },
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...waiting]
          .filter(([, t]) => t.at <= until)
          .sort(([a, x], [b, y]) => x.at - y.at || a - b);
        const next = due[0];
        if (!next) break;
        waiting.delete(next[0]);
        now = next[1].at;
        next[1].callback();
        await settled();
      }
      now = until;
      await settled();
    },
  };
}

/** A real macrotask later: the promise chains started before have run. */
export function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

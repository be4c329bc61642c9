import type { Clock, IdGenerator } from '../../src/index.js';

/** A clock the test moves by hand. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export function manualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}

/** Predictable ids: `cli_1`, `cli_2`, `evt_3`, … */
export function countingIds(): IdGenerator {
  let n = 0;
  return (prefix) => `${prefix}_${++n}`;
}

import type { IdempotencyStore } from '../../core/storage/index.js';
import { type Journal, put, remove } from './journal.js';

interface Entry {
  done: boolean;
  result: string | null;
  /** Epoch ms: for an unfinished claim, when its lock lapses; for a finished one, when it is forgotten. */
  until: number;
}

export interface IdempotencyState {
  readonly entries: Map<string, Entry>;
  nextSweep: number;
}

export function createIdempotencyState(): IdempotencyState {
  return { entries: new Map(), nextSweep: 0 };
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Claims are atomic because nothing awaits between the check and the write. Expired keys are swept at
 * most once a minute, so the map is bounded by the keys of one retention window.
 */
export function memoryIdempotencyStore(state: IdempotencyState, journal: Journal): IdempotencyStore {
  const sweep = (now: number): void => {
    if (now < state.nextSweep) return;
    state.nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, entry] of state.entries) if (entry.until <= now) state.entries.delete(key);
  };
  return {
    async claim(key, { now, lockMs }) {
      sweep(now);
      const entry = state.entries.get(key);
      if (entry && entry.until > now) {
        return entry.done ? { state: 'completed', result: entry.result } : { state: 'in_progress' };
      }
      put(journal, state.entries, key, { done: false, result: null, until: now + lockMs });
      return { state: 'claimed' };
    },
    // Inside a transaction (the answer to a request, stored with the record it created), a rollback
    // takes it back.
    async complete(key, result, expiresAt) {
      put(journal, state.entries, key, { done: true, result, until: expiresAt });
    },
    async release(key) {
      const entry = state.entries.get(key);
      if (entry && !entry.done) remove(journal, state.entries, key);
    },
  };
}

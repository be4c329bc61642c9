import type { DomainEvent } from '../../core/events.js';
import type { OutboxStore } from '../../core/storage/index.js';
import { type Journal, put } from './journal.js';

export interface OutboxEntry {
  readonly event: DomainEvent;
  /** Epoch ms until which a relay holds the event; 0 when unclaimed. */
  leaseUntil: number;
}

/** Pending events in append order. Relayed events are removed, so the outbox stays small. */
export type OutboxState = Map<string, OutboxEntry>;

/** Each subject's last sequence. */
export type SubjectState = Map<string, number>;

export function memoryOutboxStore(state: OutboxState, subjects: SubjectState, journal: Journal): OutboxStore {
  return {
    async append(event) {
      let stored: DomainEvent = event;
      if (event.subject !== undefined) {
        // Nothing awaits between reading the last number and writing the next: no two writers share one.
        const sequence = (subjects.get(event.subject) ?? 0) + 1;
        put(journal, subjects, event.subject, sequence);
        stored = { ...event, sequence };
      }
      put(journal, state, event.id, { event: Object.freeze({ ...stored }), leaseUntil: 0 });
    },
    async claim({ now, limit, leaseMs }) {
      const claimed: DomainEvent[] = [];
      for (const entry of state.values()) {
        if (claimed.length >= limit) break;
        if (entry.leaseUntil > now) continue;
        entry.leaseUntil = now + leaseMs;
        claimed.push(entry.event);
      }
      return claimed;
    },
    async markRelayed(ids) {
      for (const id of ids) state.delete(id);
    },
    async backlog() {
      return state.size;
    },
  };
}

import type { DomainEvent } from '../../core/events.js';
import { erasedData } from '../../core/storage/erasure.js';
import type { OutboxStore } from '../../core/storage/index.js';
import { type Journal, noJournal, put } from './journal.js';
import { type FeedState, place, pruneFeed, readFeed } from './outbox-feed.js';

export interface OutboxEntry {
  readonly event: DomainEvent;
  /** Epoch ms until which a relay holds the event; 0 when unclaimed. */
  leaseUntil: number;
}

/**
 * Every retained event, relayed or not, in append order: relayed events stay for the feed until the
 * sweep prunes them; the feed state knows which are pending.
 */
export type OutboxState = Map<string, OutboxEntry>;

/** Each subject's last sequence. */
export type SubjectState = Map<string, number>;

export function memoryOutboxStore(
  state: OutboxState,
  subjects: SubjectState,
  feed: FeedState,
  journal: Journal,
): OutboxStore {
  const eventOf = (id: string): DomainEvent | undefined => state.get(id)?.event;
  return {
    async append(event) {
      // A copy by a rest pattern, then assigned: Node 20 takes a slow path for `{ ...event, sequence }`.
      const { ...stored } = event as { -readonly [K in keyof DomainEvent]: DomainEvent[K] };
      if (event.subject !== undefined) {
        // Nothing awaits between reading the last number and writing the next: no two writers share one.
        const sequence = (subjects.get(event.subject) ?? 0) + 1;
        put(journal, subjects, event.subject, sequence);
        stored.sequence = sequence;
      }
      put(journal, state, event.id, { event: Object.freeze(stored), leaseUntil: 0 });
      place(feed, journal, event.id);
    },
    async claim({ now, limit, leaseMs }) {
      const claimed: DomainEvent[] = [];
      for (const id of feed.pending) {
        const entry = state.get(id)!;
        if (claimed.length >= limit) break;
        if (entry.leaseUntil > now) continue;
        entry.leaseUntil = now + leaseMs;
        claimed.push(entry.event);
      }
      return claimed;
    },
    async markRelayed(ids) {
      for (const id of ids) feed.pending.delete(id);
    },
    async backlog() {
      return feed.pending.size;
    },
    // Inside a transaction it reads its own appends; outside, only what has committed.
    read(options) {
      const read = () => readFeed(feed, eventOf, options);
      return journal === noJournal ? feed.settled(read) : Promise.resolve(read());
    },
    async prune(before) {
      return pruneFeed(feed, eventOf, (id) => state.delete(id), before);
    },
    async erase({ owner, keep }) {
      let erased = 0;
      for (const [id, entry] of [...state]) {
        if (entry.event.owner !== owner || entry.event.redacted) continue;
        const event = Object.freeze({
          ...entry.event,
          data: erasedData(entry.event.data, keep),
          redacted: true as const,
        });
        put(journal, state, id, { event, leaseUntil: entry.leaseUntil });
        erased++;
      }
      return erased;
    },
  };
}

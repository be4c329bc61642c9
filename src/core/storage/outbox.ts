import type { DomainEvent } from '../events.js';

/** Options of {@link OutboxStore.claim}: the time, how many events to take, and how long the claim holds. */
export interface ClaimOptions {
  /** Epoch milliseconds. */
  readonly now: number;
  readonly limit: number;
  /** How long a claim holds before another relay may take the event again (its relay died). */
  readonly leaseMs: number;
}

/**
 * The transactional outbox: events are appended in the same transaction as the change they describe,
 * then claimed by a relay, handed on, and marked relayed. Claims are exclusive until the lease ends.
 */
export interface OutboxStore {
  /**
   * Appends the event; one with a `subject` is given the next `sequence` of that subject (1 for its
   * first), which a rolled-back transaction gives back. Writes to one subject take turns until they
   * commit, so sequence order is commit order.
   */
  append(event: DomainEvent): Promise<void>;
  /** Oldest first; events already claimed under a live lease are skipped. */
  claim(options: ClaimOptions): Promise<DomainEvent[]>;
  markRelayed(ids: readonly string[]): Promise<void>;
  /** How many events wait to be relayed (claimed ones included): the outbox backlog. */
  backlog(): Promise<number>;
}

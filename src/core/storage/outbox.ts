import type { DomainEvent } from '../events.js';
import type { Erasure } from './erasure.js';

/** Options of {@link OutboxStore.claim}: the time, how many events to take, and how long the claim holds. */
export interface ClaimOptions {
  /** Epoch milliseconds. */
  readonly now: number;
  readonly limit: number;
  /** How long a claim holds before another relay may take the event again (its relay died). */
  readonly leaseMs: number;
}

/** Options of {@link OutboxStore.read}: where to start, how many events, of which types. */
export interface FeedReadOptions {
  /** The position read up to before (a `through` this store answered); the oldest retained event when absent. */
  readonly after?: number;
  readonly limit: number;
  /** Only events of these exact types; every type when absent. */
  readonly types?: readonly string[];
}

/** An event with its place in the feed. */
export interface FeedEvent {
  /** Its position: a positive integer, larger for each event that became readable later. */
  readonly position: number;
  readonly event: DomainEvent;
}

/** What {@link OutboxStore.read} found. */
export interface FeedRead {
  /** At most `limit` events after the position asked for, in position order. */
  readonly events: readonly FeedEvent[];
  /**
   * Where the next read starts (`after`): the last event's position when the page is full, else as far
   * as this read looked (past events of other types), never before `after`.
   */
  readonly through: number;
  /**
   * The sweep removed every event up to this position (0 when it removed none): a read after an
   * earlier position would miss events.
   */
  readonly horizon: number;
}

/** How long an adapter's `sweep` keeps relayed events readable in the feed unless told otherwise: 30 days. */
export const DEFAULT_EVENT_RETENTION_MS = 30 * 86_400_000;

/**
 * How far past `after` one {@link OutboxStore.read} looks for events of the types asked for: a rare
 * type costs a bounded read, not a scan of the whole retention (the read's `through` moves on).
 */
export const FEED_READ_WINDOW = 10_000;

/**
 * The transactional outbox: events are appended in the same transaction as the change they describe,
 * then claimed by a relay, handed on, and marked relayed. Claims are exclusive until the lease ends.
 * Relayed events stay, readable in commit order as the event feed, until `prune` removes them.
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
  /** Never handed out by `claim` again; the events stay readable with `read` until pruned. */
  markRelayed(ids: readonly string[]): Promise<void>;
  /**
   * Committed events in commit order, each with a position that no event committed later can come
   * before: a reader that has read up to a position never misses an event by going on after it.
   * Outside a transaction, an event becomes readable once its transaction has committed.
   */
  read(options: FeedReadOptions): Promise<FeedRead>;
  /**
   * Moves the feed's `horizon` past the events that occurred before `before` (epoch ms), oldest
   * position first, up to the first younger one, so the feed stays one unbroken range; removes those
   * of them that were relayed (one the relay still holds stays for it, out of the feed, and goes with a
   * later prune once relayed: a stuck event cannot hold the retention back). Returns how many it removed.
   */
  prune(before: number): Promise<number>;
  /** How many events wait to be relayed (claimed ones included): the outbox backlog. */
  backlog(): Promise<number>;
  /**
   * Makes a tombstone of every stored event of the erased client (`owner`), relayed or not: its `data`
   * keeps only the fields in `keep` (erasedData) and it reads back with `redacted: true`; id, type,
   * times, subject and sequence stay. Returns how many events it changed.
   */
  erase(erasure: Erasure): Promise<number>;
}

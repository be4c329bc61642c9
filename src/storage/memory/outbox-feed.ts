import type { DomainEvent } from '../../core/events.js';
import {
  FEED_READ_WINDOW,
  type FeedEvent,
  type FeedRead,
  type FeedReadOptions,
} from '../../core/storage/outbox.js';
import type { Journal } from './journal.js';

/** An event's place in the feed: its position and its id in the outbox map. */
interface Placed {
  readonly position: number;
  readonly id: string;
}

/**
 * The feed's order over the outbox map (which keeps every retained event, relayed or not): positions in
 * append order, which is commit order since transactions run one at a time.
 */
export interface FeedState {
  /** Ids of the events not yet relayed, in append order: what claims walk, so they never walk history. */
  readonly pending: Set<string>;
  /** Every retained event in position order. */
  readonly placed: Placed[];
  /** Events the horizon passed while the relay still held them: pruned once relayed. */
  readonly passed: Set<string>;
  last: number;
  horizon: number;
  /** Runs a read once the transaction in progress, if any, has ended: reads see committed events only. */
  readonly settled: <T>(read: () => T) => Promise<T>;
}

/** An empty feed whose reads outside transactions wait for the transaction in progress (`settled`). */
export function createFeedState(settled: FeedState['settled']): FeedState {
  return { pending: new Set(), placed: [], passed: new Set(), last: 0, horizon: 0, settled };
}

/** Places an appended event last; a rolled-back transaction takes it out again (its position stays unused). */
export function place(feed: FeedState, journal: Journal, id: string): void {
  const placed = { position: ++feed.last, id };
  feed.placed.push(placed);
  feed.pending.add(id);
  journal.record(() => {
    const at = feed.placed.lastIndexOf(placed);
    if (at >= 0) feed.placed.splice(at, 1);
    feed.pending.delete(id);
  });
}

/** {@link OutboxStore.read} over the placed events; `eventOf` finds an id's event in the outbox map. */
export function readFeed(
  feed: FeedState,
  eventOf: (id: string) => DomainEvent | undefined,
  { after, limit, types }: FeedReadOptions,
): FeedRead {
  const from = Math.max(after ?? 0, feed.horizon);
  const until = from + FEED_READ_WINDOW;
  const wanted = types && new Set(types);
  const events: FeedEvent[] = [];
  for (let i = firstAfter(feed.placed, from); i < feed.placed.length; i++) {
    const { position, id } = feed.placed[i]!;
    if (position > until) break;
    const event = eventOf(id);
    if (!event || (wanted && !wanted.has(event.type))) continue;
    events.push({ position, event });
    if (events.length === limit) return { events, through: position, horizon: feed.horizon };
  }
  const newest = feed.placed.at(-1)?.position ?? feed.horizon;
  return { events, through: Math.max(after ?? 0, Math.min(newest, until)), horizon: feed.horizon };
}

/** Removes the oldest relayed events that occurred before `before`; see {@link OutboxStore.prune}. */
export function pruneFeed(
  feed: FeedState,
  eventOf: (id: string) => DomainEvent | undefined,
  remove: (id: string) => void,
  before: number,
): number {
  let removed = 0;
  for (const id of feed.passed) {
    if (feed.pending.has(id)) continue;
    feed.passed.delete(id);
    remove(id);
    removed++;
  }
  let passed = 0;
  for (const { position, id } of feed.placed) {
    const event = eventOf(id);
    if (event && Date.parse(event.occurredAt) >= before) break;
    // One the relay still holds stays for it, below the horizon, until it is relayed (see `prune`).
    if (feed.pending.has(id)) feed.passed.add(id);
    else {
      remove(id);
      removed++;
    }
    feed.horizon = position;
    passed++;
  }
  feed.placed.splice(0, passed);
  return removed;
}

/** The index of the first placed event after `position` (binary search: positions only grow). */
function firstAfter(placed: readonly Placed[], position: number): number {
  let low = 0;
  let high = placed.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (placed[middle]!.position <= position) low = middle + 1;
    else high = middle;
  }
  return low;
}

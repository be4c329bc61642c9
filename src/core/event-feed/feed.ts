import type { Principal, Scope } from '../auth.js';
import { SwitchboardError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { ResourceService } from '../resources/service.js';
import type { Runtime } from '../runtime.js';
import { FEED_READ_WINDOW } from '../storage/outbox.js';
import { type FeedAccess, feedCatalogue } from './access.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { type FeedItem, feedItem } from './item.js';

/** Options of {@link createEventFeed}: the catalogue's parts, and what wakes a follower. */
export interface EventFeedOptions {
  /** The resources' services: each one's event types, the scope that reads them and who sees which. */
  readonly services: readonly ResourceService[];
  /** Other event types of the catalogue (the webhook module's own), each with the scope that reads it. */
  readonly otherTypes?: Readonly<Record<string, Scope>>;
  /** Wakes followers as events are published (on every instance with a cross-instance bus). */
  readonly bus?: EventBus;
  /** How often a follower also looks for new events, the bus being best effort (default 1 s). */
  readonly pollMs?: number;
}

/** What a reader asks the feed for. */
export interface FeedQuery {
  /** A cursor this feed gave, to read after; from the oldest retained event when absent. */
  readonly after?: string | undefined;
  /** Where `after` came from, named in errors (default `after`). */
  readonly cursorFrom?: string;
  /** At most this many items (1 to 100 on the interfaces). */
  readonly limit: number;
  /** Event type patterns (`order.*`, `message.created`, `*`); every type the caller may read when absent. */
  readonly types?: readonly string[] | undefined;
  /** Whose record shapes the items carry, as webhooks pinned to that version are sent. */
  readonly apiVersion: number;
}

/** A page of the feed: the items, and the cursor to read on from (also when there were none). */
export interface FeedPage {
  readonly items: FeedItem[];
  readonly next: string;
}

/**
 * The durable event feed: committed events in commit order from the outbox, to each caller what the
 * live subscriptions would have sent it (scopes per type, a user's own client's only).
 */
export interface EventFeed {
  /** Every event type of the catalogue. */
  readonly types: readonly string[];
  /**
   * A page after the cursor. Throws 400 for a cursor it did not give or an unknown type, 401/403 when
   * the caller may read none of the types, 410 (`gone`, with `oldestCursor`) for a cursor whose
   * following events the sweep has removed.
   */
  page(principal: Principal, query: FeedQuery): Promise<FeedPage>;
  /**
   * Every item after the cursor, then each new one as it commits; refuses as `page` does before it
   * yields. It holds one page at most: items are read from storage only as they are taken, so a slow
   * reader costs nothing more. `return()` ends it.
   */
  follow(principal: Principal, query: Omit<FeedQuery, 'limit'>): Promise<AsyncIterableIterator<FeedItem>>;
}

/** How many storage reads one page may take when the caller sees few of the events (another user's). */
const MAX_READS_PER_PAGE = 5;
/** Items a follower reads at once. */
const FOLLOW_PAGE = 100;

/**
 * Creates the {@link EventFeed} over the runtime's storage.
 *
 * @example
 * const feed = createEventFeed(runtime, { services: Object.values(domain.resources), bus });
 * const { items, next } = await feed.page(principal, { limit: 50, types: ['order.*'], apiVersion: 2 });
 */
export function createEventFeed(
  runtime: Pick<Runtime, 'storage' | 'timers'>,
  options: EventFeedOptions,
): EventFeed {
  const { storage, timers } = runtime;
  const catalogue = feedCatalogue(options.services, options.otherTypes);
  const pollMs = options.pollMs ?? 1_000;

  /** Reads from `after` until `limit` items the caller sees, the end, or the read budget. */
  async function read(
    { access, after, field }: Start,
    limit: number,
    apiVersion: number,
  ): Promise<{ items: FeedItem[]; through: number; more: boolean }> {
    const items: FeedItem[] = [];
    let from = after;
    for (let reads = 0; reads < MAX_READS_PER_PAGE; reads++) {
      const wanted = limit - items.length;
      const found = await storage.outbox.read({ after: from, limit: wanted, types: access.types });
      if (after !== undefined && after < found.horizon) throw gone(found.horizon, field);
      for (const { event, position } of found.events)
        if (access.sees(event))
          items.push(feedItem(event, position, access.resourceOf(event.type), apiVersion));
      // Fewer than asked before the window's end: nothing more has committed yet.
      const start = Math.max(from ?? 0, found.horizon);
      const atEnd = found.events.length < wanted && found.through < start + FEED_READ_WINDOW;
      from = found.through;
      if (atEnd) return { items, through: from, more: false };
      if (items.length === limit) break;
    }
    return { items, through: from ?? 0, more: true };
  }

  const start = (principal: Principal, query: Omit<FeedQuery, 'limit'>): Start => {
    const field = query.cursorFrom ?? 'after';
    return {
      access: catalogue.accessFor(principal, query.types),
      after: query.after === undefined ? undefined : decodeCursor(query.after, field),
      field,
    };
  };

  return {
    types: catalogue.types,

    async page(principal, query) {
      const { items, through } = await read(start(principal, query), query.limit, query.apiVersion);
      return { items, next: encodeCursor(through) };
    },

    async follow(principal, query) {
      const begun = start(principal, query);
      const { access } = begun;
      let stopped = false;
      // Set by anything that may have committed since the last read started: that read may have missed it.
      let signalled = false;
      let wake: (() => void) | undefined;
      const signal = (): void => {
        signalled = true;
        wake?.();
      };
      // Listening before the first read: what commits meanwhile wakes the next one.
      const unsubscribe = options.bus?.subscribe(signal, { types: access.types });
      const stop = (): void => {
        stopped = true;
        unsubscribe?.();
        wake?.();
      };
      let page = await read(begun, FOLLOW_PAGE, query.apiVersion).catch((error: unknown) => {
        stop();
        throw error;
      });
      const waitForMore = (): Promise<void> =>
        new Promise<void>((resolve) => {
          const timer = timers.setTimeout(() => wake?.(), pollMs);
          wake = () => {
            wake = undefined;
            timers.clearTimeout(timer);
            resolve();
          };
          if (signalled || stopped) wake();
        });

      async function* items(): AsyncGenerator<FeedItem> {
        try {
          for (;;) {
            for (const item of page.items) yield item;
            if (stopped) return;
            if (!page.more) await waitForMore();
            if (stopped) return;
            signalled = false;
            page = await read({ ...begun, after: page.through }, FOLLOW_PAGE, query.apiVersion);
          }
        } finally {
          stop();
        }
      }
      const generator = items();
      // `return()` on a generator waits for the step in progress: stop first, so a waiting step ends now.
      const iterator: AsyncIterableIterator<FeedItem> = {
        next: () => generator.next(),
        return: () => {
          stop();
          return generator.return(undefined);
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      return iterator;
    },
  };
}

/** A reader's access and where it starts; `field` names the cursor's origin in errors. */
interface Start {
  readonly access: FeedAccess;
  readonly after: number | undefined;
  readonly field: string;
}

function gone(horizon: number, field: string): SwitchboardError {
  const oldestCursor = encodeCursor(horizon);
  return new SwitchboardError(
    'gone',
    'The events after this cursor are older than the retention and were removed: read on from oldestCursor (events before it are lost to this reader).',
    {
      details: [{ field, code: 'cursor_expired', message: 'Older than the retention.' }],
      members: { oldestCursor },
    },
  );
}

/** The event feed (`GET /events` of the version the client speaks, docs/events.md) as calls. */
import type { FeedItem } from '../core/event-feed/item.js';
import type { Send } from './transport.js';
import type { CallOptions } from './types.js';

export type { FeedItem };

/** A page of the feed: its events in commit order, and where to read on from (also after none). */
export interface FeedPage {
  readonly items: readonly FeedItem[];
  readonly next: string;
}

/** Which events to read: after a cursor the feed gave (the oldest kept without one), of some types. */
export interface FeedQuery {
  /** A page's `next` or an item's `cursor`. */
  readonly after?: string;
  /** Items per page, 1 to 100 (the server's default 50). */
  readonly limit?: number;
  /** Event type patterns as webhooks take them: `order.*`, `message.created`, `*`. */
  readonly types?: readonly string[];
}

/**
 * The feed's calls. A consumer keeps the last `next` (or item `cursor`) it handled and reads on from it,
 * so nothing committed in between is missed or seen twice.
 *
 * @example
 * let after = await load('cursor'); // undefined the first time
 * for await (const item of api.events.all({ after, types: ['order.*'] })) {
 *   await handle(item);
 *   await save('cursor', (after = item.cursor));
 * }
 */
export interface EventFeedClient {
  page(query?: FeedQuery, options?: CallOptions): Promise<FeedPage>;
  /** Every event after `after` up to the newest committed, page by page; then it ends. */
  all(query?: FeedQuery, options?: CallOptions): AsyncGenerator<FeedItem>;
}

export function eventFeedClient(send: Send): EventFeedClient {
  const page = async (query: FeedQuery = {}, options?: CallOptions): Promise<FeedPage> => {
    const answer = await send({
      method: 'GET',
      path: '/events',
      query: { after: query.after, limit: query.limit, types: query.types?.join(',') },
      signal: options?.signal,
    });
    return answer.body as FeedPage;
  };
  return {
    page,
    async *all(query = {}, options) {
      let after = query.after;
      for (;;) {
        const current = await page({ ...query, after }, options);
        yield* current.items;
        // At the head the cursor stands still (a user's page may hold none of its events yet move on).
        if (current.next === after) return;
        after = current.next;
      }
    },
  };
}

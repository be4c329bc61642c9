/**
 * The durable event feed (docs/events.md): the outbox's committed events in commit order, behind
 * opaque cursors, to each caller what its scopes and tenant allow.
 */
export type { FeedAccess, FeedCatalogue } from './access.js';
export { feedCatalogue } from './access.js';
export type { EventFeedConfig } from './config.js';
export { decodeCursor, encodeCursor } from './cursor.js';
export type { EventFeed, EventFeedOptions, FeedPage, FeedQuery } from './feed.js';
export { createEventFeed } from './feed.js';
export type { FeedItem } from './item.js';
export { feedItem } from './item.js';

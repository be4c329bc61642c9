import { type DomainEvent, type EventBody, eventBody } from '../events.js';
import type { Resource } from '../resources/define.js';
import { versionedEventData } from '../resources/wire.js';
import { encodeCursor } from './cursor.js';

/**
 * One event of the feed: what a webhook endpoint pinned to the same API version is sent for it (its
 * body, key for key), plus the cursor to read on after it.
 */
export interface FeedItem extends EventBody {
  readonly cursor: string;
}

/** The item of an event at a position, its data in `apiVersion`'s shape when a resource published it. */
export function feedItem(
  event: DomainEvent,
  position: number,
  resource: Resource | undefined,
  apiVersion: number,
): FeedItem {
  // The body's own object, its cursor added: `{ ...body, cursor }` takes Node 20's slow path.
  const item = eventBody(event, versionedEventData(resource, event, apiVersion)) as { cursor?: string };
  item.cursor = encodeCursor(position);
  return item as FeedItem;
}

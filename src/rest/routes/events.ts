/**
 * `GET /events`: the durable event feed (docs/events.md) as pages of JSON, or, asked with
 * `Accept: text/event-stream`, as a stream that resumes exactly after `Last-Event-ID`.
 */
import { z } from 'zod';
import type { Authenticate } from '../../core/auth.js';
import type { EventFeed, EventFeedConfig } from '../../core/event-feed/index.js';
import type { Logger } from '../../core/runtime.js';
import { createCredentialWatch, type Watched } from '../../http/credential-watch.js';
import { eventStreamResponse } from '../../http/event-stream-response.js';
import { json } from '../../http/responses.js';
import { type AnyRoute, defineRoute } from '../../http/route.js';
import { ProblemSchema } from '../../http/schemas.js';

/** Options of {@link eventFeedRoutes}: the settings, and how open streams' credentials are checked again. */
export interface EventFeedRouteOptions extends Pick<EventFeedConfig, 'keepAliveMs' | 'credentialCheckMs'> {
  readonly authenticate: Authenticate;
  readonly logger: Logger;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

const FeedItemSchema = z
  .object({
    event: z.string().meta({ description: 'The event type, e.g. order.created', example: 'order.created' }),
    event_id: z.string().meta({ description: 'Unique per event: the same as its webhooks carry' }),
    created_at: z.string().meta({ format: 'date-time', description: 'When the change happened' }),
    subject: z.string().optional().meta({ description: 'The record whose story the event belongs to' }),
    sequence: z
      .number()
      .int()
      .optional()
      .meta({ description: "The event's place among its subject's events (1, 2, …)" }),
    data: z.record(z.string(), z.unknown()).meta({
      description: "The record as this version's GET shows it, as webhooks pinned to this version are sent",
    }),
    redacted: z.literal(true).optional().meta({
      description:
        'Present when the client the event is about was deleted and erased: `data` keeps only the ids (docs/webhooks.md, Retention and erasure)',
    }),
    cursor: z.string().meta({ description: 'Read on after this event: pass it as `after`' }),
  })
  .meta({ description: 'An event: the body of its webhook in this API version, and its cursor' });

const FeedPageSchema = z.object({
  items: z.array(FeedItemSchema),
  next: z.string().meta({ description: 'Where to read on from (as `after`), also when there were no items' }),
});

const FeedQuery = z.object({
  after: z.string().optional().meta({
    description:
      'A cursor this feed gave (`next`, an item’s `cursor`); from the oldest kept event when absent',
  }),
  limit: z.coerce
    .number<string>()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .default(DEFAULT_LIMIT)
    .meta({ description: `Items per page, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})` }),
  types: z.string().optional().meta({
    description:
      'Comma-separated event type patterns as webhooks take them: `order.*`, `message.created`, `*`',
    example: 'order.*',
  }),
});

const problem = (description: string) => ({ description, schema: ProblemSchema, name: 'Problem' });

/**
 * The feed's route. Every caller with credentials reaches it; which events it reads is the feed's
 * decision (the scopes of each type, a user's own client's only), 403 when it may read none.
 *
 * @example
 * const routes = eventFeedRoutes(createEventFeed(runtime, { services, bus }), { authenticate, logger });
 */
export function eventFeedRoutes(feed: EventFeed, options: EventFeedRouteOptions): AnyRoute[] {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const watch = createCredentialWatch({
    authenticate: options.authenticate,
    intervalMs: options.credentialCheckMs ?? 30_000,
    logger: options.logger,
  });
  return [
    defineRoute({
      method: 'GET',
      path: '/events',
      operationId: 'listEvents',
      summary: 'Read the event feed',
      description:
        'Committed events in commit order, kept for the retention (30 days by default) after they happen. ' +
        'Read pages with `after` = the last `next`. With `Accept: text/event-stream` the answer is a ' +
        'Server-Sent Events stream: the items after the cursor, then each new one as it commits, with ' +
        'its `cursor` as the SSE `id`; reconnect with `Last-Event-ID` (which wins over `after`) to go on ' +
        'exactly after the last event received.',
      tags: ['Events'],
      scope: null,
      query: FeedQuery,
      requestHeaders: {
        'Last-Event-ID': "The stream's last `id` received: the stream resumes after it (wins over `after`)",
      },
      responses: {
        200: {
          description: 'A page of events (or, asked for, a text/event-stream of them)',
          schema: FeedPageSchema,
          name: 'EventPage',
          alternatives: {
            'text/event-stream':
              'Server-Sent Events: each event is one frame, `id:` its cursor and `data:` the item as JSON; `: keep-alive` comments while quiet',
          },
        },
        400: problem('A cursor this feed did not give, an unknown event type, or a limit out of bounds'),
        401: problem('No credentials'),
        403: problem('The credentials may read none of the event types asked for'),
        410: problem(
          'The cursor is older than the retention: `oldestCursor` names where the kept events begin',
        ),
      },
      handle: async ({ request, principal, query, apiVersion }) => {
        const types = query.types
          ?.split(',')
          .map((type: string) => type.trim())
          .filter(Boolean);
        const asked = { types: types?.length ? types : undefined, apiVersion };
        if (!wantsStream(request)) {
          return json(await feed.page(principal, { ...asked, after: query.after, limit: query.limit }));
        }
        const lastEventId = request.headers.get('last-event-id') || undefined;
        const items = await feed.follow(principal, {
          ...asked,
          after: lastEventId ?? query.after,
          cursorFrom: lastEventId === undefined ? 'after' : 'Last-Event-ID',
        });
        // Ends when the reader goes, or when its credentials stop being accepted (revoked, expired).
        const credential = request.headers.get('authorization');
        const connection: Watched = { request: () => request, revoked: () => void items.return?.() };
        const end = (): void => {
          watch.unwatch(credential, connection);
          void items.return?.();
        };
        watch.watch(credential, connection);
        request.signal.addEventListener('abort', end, { once: true });
        return eventStreamResponse(items, {
          frame: (item) => `id: ${item.cursor}\ndata: ${JSON.stringify(item)}\n\n`,
          end,
          keepAliveMs,
        });
      },
    }),
  ];
}

/** Whether the caller asked for Server-Sent Events rather than a page of JSON. */
function wantsStream(request: Request): boolean {
  return request.headers.get('accept')?.includes('text/event-stream') ?? false;
}

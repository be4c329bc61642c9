/**
 * The durable event feed (docs/events.md) as a GraphQL connection: `events(after, first, types)`, the
 * same pages, cursors, access and errors as `GET /events`, each event's data as JSON text in the
 * current API version's shapes.
 */

import { z } from 'zod';
import type { EventFeed, FeedItem } from '../core/event-feed/index.js';
import { validate } from '../core/validation.js';
import type { GraphQLContext } from './context.js';
import type { CreateSchemaOptions } from './extension.js';

const DEFAULT_FIRST = 50;
const MAX_FIRST = 100;
const FIRST = z.object({ first: z.int().min(1).max(MAX_FIRST) });

const typeDefs = /* GraphQL */ `
  "A committed event, as webhooks pinned to the current API version are sent it."
  type FeedEvent {
    "The event_id: the same on its webhooks."
    id: ID!
    "The event type, e.g. order.created."
    type: String!
    createdAt: DateTime!
    "The record whose story the event belongs to."
    subject: String
    "The event's place among its subject's events (1, 2, …)."
    sequence: Int
    "The event's data as JSON text: its records as the current API version shows them."
    data: String!
    "True when the client it is about was deleted and erased: data keeps only the ids."
    redacted: Boolean!
  }

  type FeedEventEdge {
    "Read on after this event: pass it as after."
    cursor: String!
    node: FeedEvent!
  }

  type FeedPageInfo {
    "Where to read on from (as after), also when the page is empty."
    endCursor: String!
    "Whether the page is full: more may follow now. Events committed later follow any page."
    hasNextPage: Boolean!
  }

  "A page of the event feed, in commit order."
  type FeedEventConnection {
    edges: [FeedEventEdge!]!
    pageInfo: FeedPageInfo!
  }

  extend type Query {
    """
    Committed events in commit order, kept for the retention (30 days by default): the events of every
    type your scopes read (a signed-in user's own only), or of the types given as webhook patterns
    (order.*, message.created, *). Read on with after: pageInfo.endCursor.
    """
    events(after: String, first: Int = ${DEFAULT_FIRST}, types: [String!]): FeedEventConnection!
  }
`;

interface EventsArgs {
  readonly after?: string | null;
  readonly first?: number | null;
  readonly types?: readonly string[] | null;
}

/**
 * The feed's part of a schema, for `createSchema`; `apiVersion` is the version whose shapes the data
 * carries (the current one).
 *
 * @example
 * const schema = createSchema([resourceSchema(resources), eventFeedSchema(feed, { apiVersion: 2 })]);
 */
export function eventFeedSchema(
  feed: EventFeed,
  options: { readonly apiVersion: number },
): CreateSchemaOptions {
  return {
    typeDefs,
    resolvers: {
      Query: {
        events: async (_: unknown, args: EventsArgs, ctx: GraphQLContext) => {
          const first = args.first ?? DEFAULT_FIRST;
          // Refused in the words REST uses for `?limit=`.
          if (first < 1 || first > MAX_FIRST) validate(FIRST, { first });
          const page = await feed.page(ctx.principal, {
            after: args.after ?? undefined,
            limit: first,
            types: args.types ?? undefined,
            apiVersion: options.apiVersion,
          });
          return {
            edges: page.items.map((item) => ({ cursor: item.cursor, node: nodeOf(item) })),
            pageInfo: { endCursor: page.next, hasNextPage: page.items.length === first },
          };
        },
      },
    },
  };
}

function nodeOf(item: FeedItem) {
  return {
    id: item.event_id,
    type: item.event,
    createdAt: item.created_at,
    subject: item.subject ?? null,
    sequence: item.sequence ?? null,
    data: JSON.stringify(item.data),
    redacted: item.redacted === true,
  };
}

import type { IExecutableSchemaDefinition } from '@graphql-tools/schema';
import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import { canSeeClient, type Principal } from '../core/auth.js';
import { SwitchboardError } from '../core/errors.js';
import type { Client, Message, Order, OrderStatus } from '../core/records.js';
import { validate } from '../core/validation.js';
import { importClients } from './client-import/import-clients.js';
import type { GraphQLContext } from './context.js';
import { selectsPlainField } from './look-ahead.js';
import { DateTimeScalar, UploadScalar } from './scalars.js';
import { FIELD_SCOPES } from './scopes.js';
import { messageStream } from './subscriptions/event-stream.js';
import type { Upload } from './upload.js';

/** The `limit` and `offset` arguments of a list field; {@link listRange} applies defaults and bounds. */
export interface Paging {
  readonly limit?: number | null;
  readonly offset?: number | null;
}

/** A resolver map, as `@graphql-tools/schema` takes it, with {@link GraphQLContext} as context. */
export type GraphQLResolvers = Exclude<
  NonNullable<IExecutableSchemaDefinition<GraphQLContext>['resolvers']>,
  readonly unknown[]
>;

/** Resolvers of the built-in schema. Scope checks are added by `createSchema` from `FIELD_SCOPES`. */
export const resolvers: GraphQLResolvers = {
  DateTime: DateTimeScalar,
  Upload: UploadScalar,
  OrderStatus: {
    PENDING: 'pending',
    PAID: 'paid',
    SHIPPED: 'shipped',
    DELIVERED: 'delivered',
    CANCELLED: 'cancelled',
    REFUNDED: 'refunded',
  },
  Client: {
    orders(client: Client, args: { status?: OrderStatus | null; limit?: number | null }, ctx) {
      const orders = ctx.orders.load(client.id, args.status ?? undefined);
      if (args.limit === undefined || args.limit === null) return orders;
      const { limit } = listRange({ limit: args.limit }, ctx);
      return orders instanceof Promise ? orders.then((all) => all.slice(0, limit)) : orders.slice(0, limit);
    },
  },
  Message: {
    visitor_id: (message: Message) => message.visitorId,
  },
  Query: {
    client(_, args: { id: string }, ctx) {
      if (!canSeeClient(ctx.principal, args.id)) return null;
      return ctx.domain.clients.find(args.id);
    },
    async clients(_, args: Paging, ctx, info) {
      const range = listRange(args, ctx);
      const { userId } = ctx.principal;
      if (userId !== undefined) {
        // A user sees only their own record: a one-item list at most.
        const own = range.offset === 0 ? await ctx.domain.clients.find(userId) : null;
        return own ? [own] : [];
      }
      const { items } = await ctx.domain.clients.list({}, range);
      await prefetchOrders(items, ctx, info);
      return items;
    },
    async order(_, args: { id: string }, ctx) {
      const order = await ctx.domain.orders.find(args.id);
      return order && canSeeClient(ctx.principal, order.clientId) ? order : null;
    },
    async messages(_, args: Paging & { chatbotId: string; visitorId?: string | null }, ctx) {
      const filter = { chatbotId: args.chatbotId, ...(args.visitorId ? { visitorId: args.visitorId } : {}) };
      return (await ctx.domain.messages.list(filter, listRange(args, ctx))).items;
    },
  },
  Mutation: {
    createClient(_, args: { input: Record<string, unknown> }, ctx) {
      forbidForUsers(ctx.principal, 'create clients');
      return ctx.domain.clients.create(args.input);
    },
    updateClient(_, args: { id: string; input: Record<string, unknown> }, ctx) {
      visibleClient(ctx.principal, args.id);
      return ctx.domain.clients.update(args.id, args.input);
    },
    async deleteClient(_, args: { id: string }, ctx) {
      visibleClient(ctx.principal, args.id);
      await ctx.domain.clients.delete(args.id);
      return true;
    },
    async updateOrderStatus(_, args: { id: string; status: OrderStatus }, ctx) {
      const order: Order | null = await ctx.domain.orders.find(args.id);
      if (!order || !canSeeClient(ctx.principal, order.clientId)) throw notFound('order', args.id);
      return ctx.domain.orders.changeStatus(args.id, { status: args.status });
    },
    sendMessage(_, args: { input: Record<string, unknown> }, ctx) {
      return ctx.domain.messages.create(args.input);
    },
    importClients: (_, args: { file: Upload }, ctx) => {
      forbidForUsers(ctx.principal, 'import clients');
      return importClients(args.file, ctx);
    },
  },
  Subscription: {
    onNewMessage: {
      subscribe: (_: unknown, args: { chatbotId: string }, ctx: GraphQLContext) =>
        messageStream(ctx.bus, {
          chatbotId: args.chatbotId,
          maxQueue: ctx.limits.maxSubscriberQueue,
          ...(ctx.dropSlowSubscriber ? { onOverflow: ctx.dropSlowSubscriber } : {}),
        }),
      resolve: (message: Message) => message,
    },
  },
};

/**
 * Validates `limit`/`offset` of a list field against the limits: out of range is an error naming the
 * bound, never a silent clamp. Host resolvers of added list fields use it too.
 */
export function listRange(args: Paging, ctx: GraphQLContext): { limit: number; offset: number } {
  const { defaultListLimit, maxListLimit } = ctx.limits;
  const range = { limit: args.limit ?? defaultListLimit, offset: args.offset ?? 0 };
  // The common case costs two comparisons; a refusal says it in the words REST uses for `?limit=`.
  if (range.limit < 1 || range.limit > maxListLimit || range.offset < 0)
    validate(pagingSchema(maxListLimit), range);
  return range;
}

const pagingSchemas = new Map<number, z.ZodType>();

function pagingSchema(max: number): z.ZodType {
  let schema = pagingSchemas.get(max);
  if (!schema) {
    schema = z.object({ limit: z.int().min(1).max(max), offset: z.int().min(0) });
    pagingSchemas.set(max, schema);
  }
  return schema;
}

/**
 * Reads the orders the loader would read anyway, now: each `Client.orders` then answers at once instead
 * of with a promise per client. Only for callers that may see orders; the field's guard still checks.
 */
async function prefetchOrders(
  clients: readonly Client[],
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
): Promise<void> {
  const scope = FIELD_SCOPES['Client.orders'];
  if (clients.length < 2 || !scope || !ctx.principal.scopes.has(scope)) return;
  if (selectsPlainField(info, 'orders')) await ctx.orders.prefetch(clients.map((client) => client.id));
}

function forbidForUsers(principal: Principal, what: string): void {
  if (principal.userId === undefined) return;
  throw new SwitchboardError('forbidden', `Acting for a user, you cannot ${what}.`);
}

/** Another user's client answers `not_found`, exactly like a missing one, so ids cannot be probed. */
function visibleClient(principal: Principal, id: string): void {
  if (!canSeeClient(principal, id)) throw notFound('client', id);
}

function notFound(kind: string, id: string): SwitchboardError {
  return new SwitchboardError('not_found', `No ${kind} with id "${id}".`);
}

import { ORDER_TRANSITIONS, type Order, type OrderStatus, type Page } from '../records.js';
import { isoAt } from '../runtime.js';
import type { OrderFilter, Range } from '../storage/index.js';
import { OrderCreateInput, OrderStatusChangeInput, validate } from '../validation.js';
import {
  assertMove,
  type CreateOptions,
  checkVersion,
  commit,
  type DomainContext,
  newEvent,
  notFound,
  type WriteOptions,
  withRetry,
} from './context.js';

/** Creates, reads and moves orders through their life cycle; each write publishes its event. */
export interface OrderService {
  /** Creates a `pending` order for an existing client; publishes `order.created`. */
  create(clientId: string, input: unknown, options?: CreateOptions<Order>): Promise<Order>;
  get(id: string): Promise<Order>;
  find(id: string): Promise<Order | null>;
  /** Orders of one client; `not_found` when the client does not exist. */
  listByClient(clientId: string, filter: OrderFilter, range: Range): Promise<Page<Order>>;
  /** Orders of many clients in one storage call (GraphQL batching). */
  listByClients(clientIds: readonly string[], filter?: OrderFilter): Promise<Order[]>;
  /**
   * Moves an order to a new status along {@link ORDER_TRANSITIONS}; publishes `order.<status>`
   * (e.g. `order.shipped`). A move the life cycle does not allow is a `conflict`.
   */
  changeStatus(id: string, input: unknown, options?: WriteOptions): Promise<Order>;
}

export function orderService(ctx: DomainContext): OrderService {
  const { storage } = ctx;
  return {
    async create(clientId, input, options = {}) {
      const fields = validate(OrderCreateInput, input);
      const now = isoAt(ctx.clock.now());
      const order: Order = {
        id: ctx.ids('ord'),
        clientId,
        status: 'pending',
        total: fields.total,
        currency: fields.currency,
        createdAt: now,
        updatedAt: now,
        version: 1,
      };
      return commit(ctx, async (tx) => {
        const client = await tx.clients.get(clientId);
        if (!client) throw notFound('client', clientId);
        await tx.orders.insert(order);
        await tx.outbox.append(newEvent(ctx, 'order.created', { ...order, customerEmail: client.email }));
        await options.within?.(tx, order);
        return order;
      });
    },
    async get(id) {
      const order = await storage.orders.get(id);
      if (!order) throw notFound('order', id);
      return order;
    },
    find: (id) => storage.orders.get(id),
    async listByClient(clientId, filter, range) {
      if (!(await storage.clients.get(clientId))) throw notFound('client', clientId);
      return storage.orders.listByClient(clientId, filter, range);
    },
    listByClients: (clientIds, filter = {}) => storage.orders.listByClients(clientIds, filter),
    async changeStatus(id, input, options = {}) {
      const { status } = validate(OrderStatusChangeInput, input) as { status: OrderStatus };
      return withRetry(options, () =>
        commit(ctx, async (tx) => {
          const current = await tx.orders.get(id);
          if (!current) throw notFound('order', id);
          checkVersion(options, current.version);
          if (current.status === status) return current;
          assertTransition(current.status, status);
          const next: Order = {
            ...current,
            status,
            updatedAt: isoAt(ctx.clock.now()),
            version: current.version + 1,
          };
          if (!(await tx.orders.update(next, current.version))) return null;
          const client = await tx.clients.get(current.clientId);
          await tx.outbox.append(
            newEvent(ctx, `order.${status}`, {
              ...next,
              previousStatus: current.status,
              customerEmail: client?.email,
            }),
          );
          return next;
        }),
      );
    },
  };
}

function assertTransition(from: OrderStatus, to: OrderStatus): void {
  assertMove('order', 'status', from, to, ORDER_TRANSITIONS[from]);
}

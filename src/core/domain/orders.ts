import type { Order, Page } from '../records.js';
import type { ResourceService } from '../resources/service.js';
import type { OrderFilter, Range } from '../storage/index.js';
import { OrderStatusChangeInput, validate } from '../validation.js';
import { type CreateOptions, notFound, type WriteOptions } from './context.js';

/** Orders, as the declared `order` resource's service creates, reads and moves them, typed. */
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
   * Moves an order to a new status along its life cycle; publishes `order.<status>` (e.g.
   * `order.shipped`). A move the life cycle does not allow is a `conflict`.
   */
  changeStatus(id: string, input: unknown, options?: WriteOptions): Promise<Order>;
}

export function orderService(service: ResourceService, clients: ResourceService): OrderService {
  const typed = service as unknown as {
    [K in 'create' | 'get' | 'find' | 'update']: (...args: unknown[]) => Promise<Order>;
  };
  const where = (clientId: string | readonly string[], filter: OrderFilter) => ({
    clientId,
    ...(filter.status !== undefined ? { status: filter.status } : {}),
  });
  return {
    async create(clientId, input, options = {}) {
      // The client is named by the path, not the body: an absent client is a 404, as it always was.
      if (!(await clients.find(clientId))) throw notFound('client', clientId);
      const fields = input !== null && typeof input === 'object' ? input : {};
      return typed.create({ ...fields, clientId }, options);
    },
    get: typed.get,
    find: typed.find,
    async listByClient(clientId, filter, range) {
      if (!(await clients.find(clientId))) throw notFound('client', clientId);
      return (await service.list({ where: where(clientId, filter), range })) as unknown as Page<Order>;
    },
    async listByClients(clientIds, filter = {}) {
      const ids = [...new Set(clientIds)];
      const page = await service.list({ where: where(ids, filter), range: { offset: 0, limit: 100_000 } });
      return page.items as unknown as Order[];
    },
    changeStatus: async (id, input, options) =>
      typed.update(id, validate(OrderStatusChangeInput, input), options),
  };
}

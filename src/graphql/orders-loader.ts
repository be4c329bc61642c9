import type { Domain } from '../core/domain/index.js';
import type { Order, OrderStatus } from '../core/records.js';

/** Loads the orders of many clients with one storage call per request and status filter (no N+1). */
export interface OrdersLoader {
  load(clientId: string, status?: OrderStatus): Promise<readonly Order[]>;
}

interface Batch {
  readonly clientIds: Set<string>;
  readonly result: Promise<Map<string, Order[]>>;
}

/**
 * One loader per request. Resolvers of `Client.orders` for every client of a list run in the same
 * tick; the first one opens a batch that closes a few microtasks later and reads them all at once.
 */
export function createOrdersLoader(domain: Domain): OrdersLoader {
  const open = new Map<string, Batch>();
  const done = new Map<string, Promise<Map<string, Order[]>>>();

  function batchFor(status: OrderStatus | undefined): Batch {
    const key = status ?? '*';
    const existing = open.get(key);
    if (existing) return existing;
    const clientIds = new Set<string>();
    const result = settleMicrotasks().then(async () => {
      open.delete(key);
      const ids = [...clientIds];
      const orders = await domain.orders.listByClients(ids, status ? { status } : {});
      const byClient = new Map<string, Order[]>(ids.map((id) => [id, []]));
      for (const order of orders) byClient.get(order.clientId)?.push(order);
      return byClient;
    });
    const batch = { clientIds, result };
    open.set(key, batch);
    return batch;
  }

  return {
    async load(clientId, status) {
      const cacheKey = `${status ?? '*'}\u0000${clientId}`;
      let pending = done.get(cacheKey);
      if (!pending) {
        const batch = batchFor(status);
        batch.clientIds.add(clientId);
        pending = batch.result;
        done.set(cacheKey, pending);
      }
      return (await pending).get(clientId) ?? [];
    },
  };
}

// Lets sibling resolvers that are themselves one await deep join the same batch.
async function settleMicrotasks(): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.resolve();
}

import type { Domain } from '../core/domain/index.js';
import type { Order, OrderStatus } from '../core/records.js';

/** Loads the orders of many clients with one storage call per request and status filter (no N+1). */
export interface OrdersLoader {
  /** The client's orders: at once when they are loaded already, else a promise that joins a batch. */
  load(clientId: string, status?: OrderStatus): readonly Order[] | Promise<readonly Order[]>;
  /**
   * Loads the orders of these clients with one storage call, so that their `load`s answer at once:
   * a list resolver that knows its clients' orders are selected calls it before it returns.
   */
  prefetch(clientIds: readonly string[], status?: OrderStatus): Promise<void>;
}

interface Batch {
  readonly clientIds: Set<string>;
  readonly result: Promise<void>;
}

/**
 * One loader per request. Resolvers of `Client.orders` for every client of a list run in the same
 * tick; the first one opens a batch that closes a few microtasks later and reads them all at once.
 */
export function createOrdersLoader(domain: Domain): OrdersLoader {
  const open = new Map<string, Batch>();
  const pending = new Map<string, Promise<void>>();
  const loaded = new Map<string, readonly Order[]>();

  async function read(ids: readonly string[], status: OrderStatus | undefined): Promise<void> {
    const orders = await domain.orders.listByClients(ids, status ? { status } : {});
    const byClient = new Map<string, Order[]>(ids.map((id) => [id, []]));
    for (const order of orders) byClient.get(order.clientId)?.push(order);
    for (const [id, list] of byClient) loaded.set(keyOf(id, status), list);
  }

  function batchFor(status: OrderStatus | undefined): Batch {
    const key = status ?? '*';
    const existing = open.get(key);
    if (existing) return existing;
    const clientIds = new Set<string>();
    const result = settleMicrotasks().then(() => {
      open.delete(key);
      return read([...clientIds], status);
    });
    const batch = { clientIds, result };
    open.set(key, batch);
    return batch;
  }

  return {
    load(clientId, status) {
      const key = keyOf(clientId, status);
      const orders = loaded.get(key);
      if (orders) return orders;
      let waiting = pending.get(key);
      if (!waiting) {
        const batch = batchFor(status);
        batch.clientIds.add(clientId);
        waiting = batch.result;
        pending.set(key, waiting);
      }
      return waiting.then(() => loaded.get(key) ?? []);
    },
    async prefetch(clientIds, status) {
      const missing = clientIds.filter((id) => {
        const key = keyOf(id, status);
        return !loaded.has(key) && !pending.has(key);
      });
      if (!missing.length) return;
      // Only a shortcut: should it fail, each `load` reads again and fails where it always did.
      await read(missing, status).catch(() => undefined);
    },
  };
}

function keyOf(clientId: string, status: OrderStatus | undefined): string {
  return `${status ?? '*'}\u0000${clientId}`;
}

// Lets sibling resolvers that are themselves one await deep join the same batch.
async function settleMicrotasks(): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.resolve();
}

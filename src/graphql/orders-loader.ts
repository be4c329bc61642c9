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
  // By status filter ('*' for none), then by client: no key is built per client.
  const pending = new Map<string, Map<string, Promise<void>>>();
  const loaded = new Map<string, Map<string, readonly Order[]>>();
  const within = <V>(maps: Map<string, Map<string, V>>, status: OrderStatus | undefined): Map<string, V> => {
    const key = status ?? '*';
    let map = maps.get(key);
    if (!map) {
      map = new Map();
      maps.set(key, map);
    }
    return map;
  };

  async function read(ids: readonly string[], status: OrderStatus | undefined): Promise<void> {
    const orders = await domain.orders.listByClients(ids, status ? { status } : {});
    const into = within(loaded, status) as Map<string, Order[]>;
    for (const id of ids) into.set(id, []);
    for (const order of orders) into.get(order.clientId)?.push(order);
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
      const done = within(loaded, status);
      const orders = done.get(clientId);
      if (orders) return orders;
      const waiting = within(pending, status);
      let result = waiting.get(clientId);
      if (!result) {
        const batch = batchFor(status);
        batch.clientIds.add(clientId);
        result = batch.result;
        waiting.set(clientId, result);
      }
      return result.then(() => done.get(clientId) ?? []);
    },
    async prefetch(clientIds, status) {
      const done = within(loaded, status);
      const waiting = within(pending, status);
      const missing = clientIds.filter((id) => !done.has(id) && !waiting.has(id));
      if (!missing.length) return;
      // Only a shortcut: should it fail, each `load` reads again and fails where it always did.
      await read(missing, status).catch(() => undefined);
    },
  };
}

// Lets sibling resolvers that are themselves one await deep join the same batch.
async function settleMicrotasks(): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.resolve();
}

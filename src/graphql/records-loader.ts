import type { Principal } from '../core/auth.js';
import type { Domain } from '../core/domain/index.js';
import type { ResourceQuery, ResourceRecord } from '../core/storage/index.js';

type Where = ResourceQuery['where'];

/**
 * Loads the records that relate to many clients (`Client.orders`, `Client.bookings` …) with one
 * storage call per operation, resource and filter: no N+1.
 */
export interface RecordsLoader {
  /** The client's records: at once when they are loaded already, else a promise that joins a batch. */
  load(
    resource: string,
    clientId: string,
    where?: Where,
  ): readonly ResourceRecord[] | Promise<readonly ResourceRecord[]>;
  /**
   * Loads the records of these clients with one storage call, so that their `load`s answer at once:
   * a list resolver that knows the field is selected calls it before it returns.
   */
  prefetch(resource: string, clientIds: readonly string[], where?: Where): Promise<void>;
}

interface Batch {
  readonly clientIds: Set<string>;
  readonly result: Promise<void>;
}

/** The most records one read takes; past it each client's are read on their own. */
const READ_LIMIT = 10_000;

/**
 * One loader per operation. Resolvers of `Client.<plural>` for every client of a list run in the same
 * tick; the first one opens a batch that closes a few microtasks later and reads them all at once.
 */
export function createRecordsLoader(domain: Domain, principal: Principal): RecordsLoader {
  const open = new Map<string, Batch>();
  // By resource and filter, then by client: no key is built per client.
  const pending = new Map<string, Map<string, Promise<void>>>();
  const loaded = new Map<string, Map<string, readonly ResourceRecord[]>>();
  const within = <V>(maps: Map<string, Map<string, V>>, key: string): Map<string, V> => {
    let map = maps.get(key);
    if (!map) {
      map = new Map();
      maps.set(key, map);
    }
    return map;
  };
  const keyOf = (resource: string, where: Where | undefined) =>
    where && Object.keys(where).length ? `${resource} ${JSON.stringify(where)}` : resource;

  async function read(resource: string, key: string, ids: readonly string[], where: Where = {}) {
    // Acting for the caller: a user's loads stay within their own client, decided by the service.
    const service = domain.resources[resource]!.for(principal);
    const field = service.resource.owner!;
    const query = (clients: string | readonly string[]) => ({
      where: { ...where, [field]: clients },
      range: { offset: 0, limit: READ_LIMIT },
    });
    const into = within(loaded, key) as Map<string, ResourceRecord[]>;
    const page = await service.list(query(ids));
    for (const id of ids) into.set(id, []);
    if (page.total > page.items.length) {
      for (const id of ids) into.set(id, [...(await service.list(query(id))).items]);
      return;
    }
    for (const record of page.items) into.get(String(record[field]))?.push(record);
  }

  function batchFor(resource: string, key: string, where: Where | undefined): Batch {
    const existing = open.get(key);
    if (existing) return existing;
    const clientIds = new Set<string>();
    const result = settleMicrotasks().then(() => {
      open.delete(key);
      return read(resource, key, [...clientIds], where);
    });
    const batch = { clientIds, result };
    open.set(key, batch);
    return batch;
  }

  return {
    load(resource, clientId, where) {
      const key = keyOf(resource, where);
      const done = within(loaded, key);
      const records = done.get(clientId);
      if (records) return records;
      const waiting = within(pending, key);
      let result = waiting.get(clientId);
      if (!result) {
        const batch = batchFor(resource, key, where);
        batch.clientIds.add(clientId);
        result = batch.result;
        waiting.set(clientId, result);
      }
      return result.then(() => done.get(clientId) ?? []);
    },
    async prefetch(resource, clientIds, where) {
      const key = keyOf(resource, where);
      const done = within(loaded, key);
      const waiting = within(pending, key);
      const missing = clientIds.filter((id) => !done.has(id) && !waiting.has(id));
      if (!missing.length) return;
      // Only a shortcut: should it fail, each `load` reads again and fails where it always did.
      await read(resource, key, missing, where).catch(() => undefined);
    },
  };
}

// Lets sibling resolvers that are themselves one await deep join the same batch.
async function settleMicrotasks(): Promise<void> {
  for (let i = 0; i < 3; i++) await Promise.resolve();
}

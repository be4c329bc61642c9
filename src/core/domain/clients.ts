import type { Client, Page } from '../records.js';
import type { ResourceService } from '../resources/service.js';
import type { ClientFilter, Range } from '../storage/index.js';
import type { CreateOptions, WriteOptions } from './context.js';

/**
 * Clients, as the declared `client` resource's service reads and writes them, typed: every write is
 * validated and publishes its event in the same transaction.
 */
export interface ClientService {
  /** Validates and creates a client; publishes `client.created`. */
  create(input: unknown, options?: CreateOptions<Client>): Promise<Client>;
  /** The client, or a `not_found` error. */
  get(id: string): Promise<Client>;
  find(id: string): Promise<Client | null>;
  list(filter: ClientFilter, range: Range): Promise<Page<Client>>;
  /** Full replacement (every field); publishes `client.updated`. */
  replace(id: string, input: unknown, options?: WriteOptions): Promise<Client>;
  /** Merge patch (only the fields sent); publishes `client.updated` when something changed. */
  update(id: string, patch: unknown, options?: WriteOptions): Promise<Client>;
  /** Deletes the client and what it owns (orders, bookings …); publishes `client.deleted`. */
  delete(id: string, options?: WriteOptions): Promise<void>;
}

export function clientService(service: ResourceService): ClientService {
  const typed = service as unknown as ClientService & ResourceService;
  return {
    create: typed.create,
    get: typed.get,
    find: typed.find,
    replace: typed.replace,
    update: typed.update,
    delete: typed.delete,
    list: (filter, range) =>
      typed.list({
        where: {
          ...(filter.city !== undefined ? { city: filter.city } : {}),
          ...(filter.email !== undefined ? { email: filter.email.trim().toLowerCase() } : {}),
          ...(filter.nameContains !== undefined ? { name: { contains: filter.nameContains } } : {}),
        },
        range,
      }) as unknown as Promise<Page<Client>>,
  };
}

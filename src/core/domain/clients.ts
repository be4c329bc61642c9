import type { Client, Page } from '../records.js';
import { isoAt } from '../runtime.js';
import type { ClientFilter, Range } from '../storage/index.js';
import { ClientCreateInput, ClientPatchInput, ClientReplaceInput, validate } from '../validation.js';
import {
  type CreateOptions,
  checkVersion,
  commit,
  type DomainContext,
  newEvent,
  notFound,
  type WriteOptions,
  withRetry,
} from './context.js';

/** Reads and writes clients; every write is validated and publishes its event in the same transaction. */
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
  /** Deletes the client and its orders; publishes `client.deleted`. */
  delete(id: string, options?: WriteOptions): Promise<void>;
}

export function clientService(ctx: DomainContext): ClientService {
  const { storage } = ctx;

  const change = (id: string, fields: Partial<Client>, options: WriteOptions): Promise<Client> =>
    withRetry(options, () =>
      commit(ctx, async (tx) => {
        const current = await tx.clients.get(id);
        if (!current) throw notFound('client', id);
        checkVersion(options, current.version);
        const next: Client = { ...current, ...fields };
        if (sameClient(current, next)) return current;
        const updated = { ...next, updatedAt: isoAt(ctx.clock.now()), version: current.version + 1 };
        if (!(await tx.clients.update(updated, current.version))) return null;
        await tx.outbox.append(newEvent(ctx, 'client.updated', { ...updated, previous: current }));
        return updated;
      }),
    );

  return {
    async create(input, options = {}) {
      const fields = validate(ClientCreateInput, input);
      const now = isoAt(ctx.clock.now());
      const client: Client = {
        id: ctx.ids('cli'),
        name: fields.name,
        email: fields.email,
        phone: fields.phone ?? null,
        city: fields.city ?? null,
        createdAt: now,
        updatedAt: now,
        version: 1,
      };
      return commit(ctx, async (tx) => {
        await tx.clients.insert(client);
        await tx.outbox.append(newEvent(ctx, 'client.created', { ...client }));
        await options.within?.(tx, client);
        return client;
      });
    },
    async get(id) {
      const client = await storage.clients.get(id);
      if (!client) throw notFound('client', id);
      return client;
    },
    find: (id) => storage.clients.get(id),
    list: (filter, range) => storage.clients.list(filter, range),
    async replace(id, input, options = {}) {
      return change(id, validate(ClientReplaceInput, input), options);
    },
    async update(id, patch, options = {}) {
      return change(id, validate(ClientPatchInput, patch), options);
    },
    async delete(id, options = {}) {
      await withRetry(options, () =>
        commit(ctx, async (tx) => {
          const current = await tx.clients.get(id);
          if (!current) throw notFound('client', id);
          checkVersion(options, current.version);
          if (!(await tx.clients.delete(id, current.version))) return null;
          await tx.orders.deleteByClient(id);
          await tx.outbox.append(newEvent(ctx, 'client.deleted', { ...current }));
          return true;
        }),
      );
    },
  };
}

function sameClient(a: Client, b: Client): boolean {
  return a.name === b.name && a.email === b.email && a.phone === b.phone && a.city === b.city;
}

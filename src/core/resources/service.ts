/**
 * The domain service of a declared resource: validated writes, each with its event in the same
 * transaction, compare-and-set on `version`, references checked, life-cycle moves enforced.
 */
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
} from '../domain/context.js';
import { SwitchboardError } from '../errors.js';
import type { Page } from '../records.js';
import { isoAt } from '../runtime.js';
import type { Range, ResourceQuery, ResourceRecord, Stores } from '../storage/index.js';
import { validate } from '../validation.js';
import type { Resource } from './define.js';

/** What a list asks a resource service for; every part optional but the range. */
export interface ResourceListQuery {
  readonly where?: ResourceQuery['where'];
  readonly sort?: ResourceQuery['sort'];
  readonly range: Range;
}

/** Reads and writes the records of one declared resource. */
export interface ResourceService {
  readonly resource: Resource;
  /** Validates and creates a record in the initial state; publishes the created event. */
  create(input: unknown, options?: CreateOptions<ResourceRecord>): Promise<ResourceRecord>;
  /** The record, or a `not_found` error. */
  get(id: string): Promise<ResourceRecord>;
  find(id: string): Promise<ResourceRecord | null>;
  list(query: ResourceListQuery): Promise<Page<ResourceRecord>>;
  /** Full replacement of the writable fields; publishes the updated event when something changed. */
  replace(id: string, input: unknown, options?: WriteOptions): Promise<ResourceRecord>;
  /** Merge patch; the life-cycle field moves the record and publishes that move's event. */
  update(id: string, patch: unknown, options?: WriteOptions): Promise<ResourceRecord>;
  /** Deletes the record; publishes the deleted event. */
  delete(id: string, options?: WriteOptions): Promise<void>;
}

export function resourceService(ctx: DomainContext, resource: Resource): ResourceService {
  const { name, lifecycle } = resource;
  const fieldNames = Object.keys(resource.fields);

  /** Every declared field present (optional ones `null`): a record has one shape everywhere. */
  const complete = (fields: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(fieldNames.map((f) => [f, fields[f] ?? null]));

  const change = (
    id: string,
    fields: Record<string, unknown>,
    options: WriteOptions,
    replace: boolean,
  ): Promise<ResourceRecord> =>
    withRetry(options, () =>
      commit(ctx, async (tx) => {
        const current = await tx.resources.get(name, id);
        if (!current) throw notFound(name, id);
        checkVersion(options, current.version);
        // A replace writes every writable field (absent ones cleared); immutable fields and the state stay.
        const written = replace
          ? Object.fromEntries(resource.writable.map((f) => [f, fields[f] ?? null]))
          : fields;
        const next: Record<string, unknown> = { ...current, ...written };
        const moved = lifecycle ? moveOf(resource, current, next) : undefined;
        if (!moved && fieldNames.every((f) => same(current[f], next[f]))) return current;
        await checkReferences(tx, resource, fields);
        const updated = {
          ...next,
          updatedAt: isoAt(ctx.clock.now()),
          version: current.version + 1,
        } as ResourceRecord;
        await checkRule(tx, resource, updated);
        if (!(await tx.resources.update(name, updated, current.version))) return null;
        await tx.outbox.append(
          newEvent(ctx, moved ?? resource.events.updated, { ...updated, previous: current }),
        );
        return updated;
      }),
    );

  return {
    resource,
    async create(input, options = {}) {
      const fields = validate(resource.createInput, input);
      const now = isoAt(ctx.clock.now());
      const record: ResourceRecord = {
        id: ctx.ids(resource.idPrefix),
        ...complete(fields),
        ...(lifecycle ? { [lifecycle.field]: lifecycle.initial } : {}),
        createdAt: now,
        updatedAt: now,
        version: 1,
      };
      return commit(ctx, async (tx) => {
        await checkReferences(tx, resource, fields);
        await checkRule(tx, resource, record);
        await tx.resources.insert(name, record);
        await tx.outbox.append(newEvent(ctx, resource.events.created, { ...record }));
        await options.within?.(tx, record);
        return record;
      });
    },
    async get(id) {
      const record = await ctx.storage.resources.get(name, id);
      if (!record) throw notFound(name, id);
      return record;
    },
    find: (id) => ctx.storage.resources.get(name, id),
    list: (query) =>
      ctx.storage.resources.list(name, {
        where: query.where ?? {},
        sort: query.sort ?? { field: 'createdAt', descending: false },
        range: query.range,
      }),
    replace: (id, input, options = {}) => change(id, validate(resource.replaceInput, input), options, true),
    update: (id, patch, options = {}) => change(id, validate(resource.patchInput, patch), options, false),
    async delete(id, options = {}) {
      await withRetry(options, () =>
        commit(ctx, async (tx) => {
          const current = await tx.resources.get(name, id);
          if (!current) throw notFound(name, id);
          checkVersion(options, current.version);
          if (!(await tx.resources.delete(name, id, current.version))) return null;
          await tx.outbox.append(newEvent(ctx, resource.events.deleted, { ...current }));
          return true;
        }),
      );
    },
  };
}

/** The event of a life-cycle move from `current` to `next`, or undefined when the state stays. */
function moveOf(
  resource: Resource,
  current: ResourceRecord,
  next: Record<string, unknown>,
): string | undefined {
  const lifecycle = resource.lifecycle!;
  const from = current[lifecycle.field] as string;
  const to = next[lifecycle.field] as string;
  if (from === to) return undefined;
  assertMove(resource.name, lifecycle.field, from, to, lifecycle.states[from]?.to ?? []);
  return lifecycle.states[to]!.event ?? `${resource.name}.${to}`;
}

/** Every reference written must name an existing record: a dangling id is refused, not stored. */
async function checkReferences(
  tx: Stores,
  resource: Resource,
  fields: Record<string, unknown>,
): Promise<void> {
  for (const [field, target] of Object.entries(resource.relations)) {
    const id = fields[field];
    if (typeof id !== 'string') continue;
    const found =
      target === 'client'
        ? await tx.clients.get(id)
        : target === 'order'
          ? await tx.orders.get(id)
          : await tx.resources.get(target, id);
    if (!found) {
      const message = `${field} names no ${target}: "${id}".`;
      throw new SwitchboardError('validation_failed', `The input is not valid: ${message}`, {
        details: [{ field, code: 'unknown_reference', message }],
      });
    }
  }
}

/** The resource's own rule across records (e.g. no two confirmed bookings of a service overlap). */
async function checkRule(tx: Stores, resource: Resource, record: ResourceRecord): Promise<void> {
  if (!resource.check) return;
  // The rule reads other records: writes of this resource take turns, on every instance.
  await tx.resources.lock(resource.name);
  await resource.check(record, async (where) => {
    const page = await tx.resources.list(resource.name, {
      where,
      sort: { field: 'createdAt', descending: false },
      range: { offset: 0, limit: 1000 },
    });
    return page.items.filter((other) => other.id !== record.id);
  });
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The domain service of a resource: validated writes, each with its event in the same transaction,
 * compare-and-set on `version`, references and unique fields checked, life-cycle moves enforced,
 * owned records deleted with their owner. Built-in and declared resources alike.
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
import type { Related } from './input.js';

/** What a list asks a resource service for; every part optional but the range. */
export interface ResourceListQuery {
  readonly where?: ResourceQuery['where'];
  readonly sort?: ResourceQuery['sort'];
  readonly range: Range;
}

/** Reads and writes the records of one resource. */
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
  /** Deletes the record and the records it owns; publishes the deleted event. */
  delete(id: string, options?: WriteOptions): Promise<void>;
}

/** The services of every resource, by name; a service reaches the others through it. */
export type ResourceRegistry = ReadonlyMap<string, InternalService>;

/** A service plus what other services call inside their own transaction. */
export interface InternalService extends ResourceService {
  /** Creates from validated fields inside `tx` (a message starting its conversation). */
  createIn(tx: Stores, fields: Record<string, unknown>): Promise<ResourceRecord>;
}

/** The largest batch one cascade step or rule reads at once. */
const BATCH = 1000;

export function resourceService(
  ctx: DomainContext,
  resource: Resource,
  registry: ResourceRegistry,
): InternalService {
  const { name, lifecycle } = resource;
  const fieldNames = Object.keys(resource.fields);
  const stateField = lifecycle?.field;
  const previousOfState = stateField && `previous${stateField[0]!.toUpperCase()}${stateField.slice(1)}`;

  /** Every declared field present (optional ones `null`): a record has one shape everywhere. */
  const complete = (fields: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(fieldNames.map((f) => [f, fields[f] ?? null]));

  /** A stored record as the interfaces show it: an append-only one shows only its `timestamp`. */
  const view = (record: ResourceRecord): ResourceRecord => {
    if (resource.versioned) return record;
    const { createdAt, updatedAt: _u, version: _v, ...rest } = record;
    return { ...rest, timestamp: createdAt } as unknown as ResourceRecord;
  };
  const storedSort = (sort: ResourceQuery['sort']): ResourceQuery['sort'] =>
    sort.field === resource.createdField ? { ...sort, field: 'createdAt' } : sort;

  const announce = async (tx: Stores, type: string, record: ResourceRecord, extra = {}) => {
    const data = resource.eventData ? await resource.eventData(record, relatedIn(tx, registry)) : {};
    await tx.outbox.append(newEvent(ctx, type, { ...view(record), ...extra, ...data }));
  };

  const createIn = async (tx: Stores, fields: Record<string, unknown>): Promise<ResourceRecord> => {
    const now = isoAt(ctx.clock.now());
    let record: ResourceRecord = {
      id: ctx.ids(resource.idPrefix),
      ...complete(fields),
      ...(lifecycle ? { [lifecycle.field]: lifecycle.initial } : {}),
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    await checkReferences(tx, resource, fields);
    if (resource.prepare) record = await resource.prepare(record, relatedIn(tx, registry));
    await checkUnique(tx, resource, record, fields);
    await checkRule(tx, resource, record);
    await tx.resources.insert(name, record);
    await announce(tx, resource.events.created, record);
    return view(record);
  };

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
        await checkUnique(tx, resource, updated, fields);
        await checkRule(tx, resource, updated);
        if (!(await tx.resources.update(name, updated, current.version))) return null;
        const previous = moved && previousOfState ? { [previousOfState]: current[stateField!] } : {};
        await announce(tx, moved ?? resource.events.updated, updated, { ...previous, previous: current });
        return updated;
      }),
    );

  return {
    resource,
    createIn,
    async create(input, options = {}) {
      const fields = validate(resource.createInput, input);
      return commit(ctx, async (tx) => {
        const record = await createIn(tx, fields);
        await options.within?.(tx, record);
        return record;
      });
    },
    async get(id) {
      const record = await ctx.storage.resources.get(name, id);
      if (!record) throw notFound(name, id);
      return view(record);
    },
    async find(id) {
      const record = await ctx.storage.resources.get(name, id);
      return record && view(record);
    },
    async list(query) {
      const page = await ctx.storage.resources.list(name, {
        where: query.where ?? {},
        sort: storedSort(query.sort ?? { field: resource.createdField, descending: false }),
        range: query.range,
      });
      return resource.versioned ? page : { items: page.items.map(view), total: page.total };
    },
    replace: async (id, input, options = {}) =>
      change(id, validate(resource.replaceInput, input), options, true),
    update: async (id, patch, options = {}) =>
      change(id, validate(resource.patchInput, patch), options, false),
    async delete(id, options = {}) {
      await withRetry(options, () =>
        commit(ctx, async (tx) => {
          const current = await tx.resources.get(name, id);
          if (!current) throw notFound(name, id);
          checkVersion(options, current.version);
          if (!(await tx.resources.delete(name, id, current.version))) return null;
          await deleteOwned(tx, registry, name, id);
          await announce(tx, resource.events.deleted, current);
          return true;
        }),
      );
    },
  };
}

/** Records owned by a deleted one go with it (a client's orders, bookings, conversations). */
async function deleteOwned(tx: Stores, registry: ResourceRegistry, owner: string, id: string): Promise<void> {
  for (const { resource } of registry.values()) {
    const field = resource.owner;
    if (!field || field === 'id' || resource.relations[field] !== owner) continue;
    for (;;) {
      const page = await tx.resources.list(resource.name, {
        where: { [field]: id },
        sort: { field: 'createdAt', descending: false },
        range: { offset: 0, limit: BATCH },
      });
      for (const record of page.items) {
        await tx.resources.delete(resource.name, record.id, record.version);
        await deleteOwned(tx, registry, resource.name, record.id);
      }
      if (page.items.length < BATCH) break;
    }
  }
}

/** What a definition's hooks see of other records, inside the transaction at hand. */
function relatedIn(tx: Stores, registry: ResourceRegistry): Related {
  return {
    get: (resource, id) => tx.resources.get(resource, id),
    async find(resource, where) {
      const page = await tx.resources.list(resource, {
        where,
        sort: { field: 'createdAt', descending: false },
        range: { offset: 0, limit: BATCH },
      });
      return page.items;
    },
    async create(resource, input) {
      const service = registry.get(resource);
      if (!service) throw new Error(`No resource named "${resource}".`);
      return service.createIn(tx, validate(service.resource.createInput, input));
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
    if (typeof id !== 'string' || (await tx.resources.get(target, id))) continue;
    const message = `${field} names no ${target}: "${id}".`;
    throw new SwitchboardError('validation_failed', `The input is not valid: ${message}`, {
      details: [{ field, code: 'unknown_reference', message }],
    });
  }
}

/** A unique field written with a value another record holds is a `conflict` naming the field. */
async function checkUnique(
  tx: Stores,
  resource: Resource,
  record: ResourceRecord,
  written: Record<string, unknown>,
): Promise<void> {
  const fields = resource.unique.filter((f) => written[f] !== undefined && record[f] !== null);
  if (fields.length === 0) return;
  // Check-then-write: writes of this resource take turns, on every instance.
  await tx.resources.lock(resource.name);
  for (const field of fields) {
    const value = record[field] as string | number | boolean;
    const page = await tx.resources.list(resource.name, {
      where: { [field]: value },
      sort: { field: 'createdAt', descending: false },
      range: { offset: 0, limit: 2 },
    });
    if (page.items.some((other) => other.id !== record.id))
      throw new SwitchboardError(
        'conflict',
        `A ${resource.name} with the ${field} ${value} already exists.`,
        {
          details: [
            {
              field,
              code: 'already_exists',
              message: `This ${field} is already used by another ${resource.name}.`,
            },
          ],
        },
      );
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
      range: { offset: 0, limit: BATCH },
    });
    return page.items.filter((other) => other.id !== record.id);
  });
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

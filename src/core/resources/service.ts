/**
 * The domain service of a resource: validated writes, each with its event in the same transaction,
 * compare-and-set on `version`, references and unique fields checked, life-cycle moves enforced,
 * owned records deleted with their owner. Built-in and declared resources alike. Access is decided
 * here and only here: `service.for(principal)` checks scopes and keeps a signed-in user to their own
 * client's records, through relations, inside the write's transaction.
 */
import { type Principal, requireScope } from '../auth.js';
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
import type { DomainEvent } from '../events.js';
import { isoAt } from '../runtime.js';
import type { Page, Range, ResourceQuery, ResourceRecord, Stores } from '../storage/index.js';
import { validate } from '../validation.js';
import type { Resource } from './define.js';
import { eraseOwner, keptOnErasure } from './erasure.js';
import type { Related } from './input.js';
import { capital } from './names.js';
import { bothOf, type OwnerPath, ownedWhere, ownerOf } from './ownership.js';
import { PREVIOUS_RECORD_FIELD } from './wire.js';

/** What a list asks a resource service for; every part optional but the range. */
export interface ResourceListQuery {
  readonly where?: ResourceQuery['where'];
  readonly sort?: ResourceQuery['sort'];
  readonly range: Range;
}

/** Reads and writes the records of one resource. */
export interface ResourceService {
  readonly resource: Resource;
  /** The way from a record to the client that owns it; undefined when no client owns these records. */
  readonly ownerPath: OwnerPath | undefined;
  /**
   * The same service acting for a caller: it refuses what the caller's scopes do not allow, and a
   * signed-in user reads, receives, creates into and changes only their own client's records (a
   * message through its conversation), meeting the same 404 an absent record gets. Every interface
   * calls through it; none decides access itself.
   */
  for(principal: Principal): ResourceService;
  /** Whether the caller may receive this event of the resource: always, unless a user's and not theirs. */
  sees(event: DomainEvent): boolean;
  /**
   * Whether the record exists and is the caller's to reach, whatever their scopes for it: for paths
   * under a parent record (`/clients/{id}/orders` needs the orders scope, not the clients one).
   */
  exists(id: string): Promise<boolean>;
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
  /** Creates from validated fields inside `tx` (a message starting its conversation), for `userId` when set. */
  createIn(
    tx: Stores,
    fields: Record<string, unknown>,
    userId?: string,
    via?: string,
  ): Promise<ResourceRecord>;
}

/** The largest batch one cascade step or rule reads at once. */
const BATCH = 1000;

export function resourceService(
  ctx: DomainContext,
  resource: Resource,
  registry: ResourceRegistry,
  ownerPath: OwnerPath | undefined,
): InternalService {
  const { name, plural, lifecycle } = resource;
  const fieldNames = Object.keys(resource.fields);
  const stateField = lifecycle?.field;
  const previousOfState = resource.previousStateField;
  // What a tombstone of an erased client's event keeps: found once, when the first client is deleted.
  let keep: string[] | undefined;
  // The field a user's own client id goes in, when the owner is named directly (an order's clientId).
  const ownerField = ownerPath?.length === 1 ? ownerPath[0]!.field : undefined;
  // Whose story an event is part of: the record, or the one its declared subject names.
  const subjectField = resource.subject;

  /** Every declared field present (optional ones `null`): a record has one shape everywhere. */
  const complete = (fields: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(fieldNames.map((f) => [f, fields[f] ?? null]));

  /** A stored record as the interfaces show it: an append-only one shows only its `timestamp`. */
  const view = (record: ResourceRecord): ResourceRecord => {
    if (resource.versioned) return record;
    const { createdAt, updatedAt: _u, version: _v, ...rest } = record;
    // Assigned, not `{ ...rest, timestamp }`: Node 20 takes a slow path for members after a spread.
    (rest as Record<string, unknown>).timestamp = createdAt;
    return rest as unknown as ResourceRecord;
  };
  const storedSort = (sort: ResourceQuery['sort']): ResourceQuery['sort'] =>
    sort.field === resource.createdField ? { ...sort, field: 'createdAt' } : sort;

  const announce = async (tx: Stores, type: string, record: ResourceRecord, extra = {}, via?: string) => {
    const data = resource.eventData ? await resource.eventData(record, relatedIn(tx, registry)) : {};
    const owner = ownerPath && (await ownerOf(ownerPath, record, getIn(tx)));
    const named = subjectField ? record[subjectField] : undefined;
    await tx.outbox.append(
      newEvent(
        ctx,
        type,
        { ...view(record), ...extra, ...data },
        {
          subject: typeof named === 'string' ? named : record.id,
          ...(owner ? { owner } : {}),
          ...(via !== undefined ? { via } : {}),
        },
      ),
    );
  };

  /**
   * Whether `userId` (a signed-in user; undefined: any caller) owns the record; known at once, without a
   * promise, when no owner need be read.
   */
  const owns = (
    tx: Stores,
    userId: string | undefined,
    record: Readonly<Record<string, unknown>>,
  ): boolean | Promise<boolean> =>
    userId === undefined ||
    !ownerPath ||
    ownerOf(ownerPath, record, getIn(tx)).then((owner) => owner === userId);

  /**
   * What a user writes stays theirs: the direct owner field is their own client (filled in when left
   * out); another client there is refused, never silently replaced.
   */
  const claim = (fields: Record<string, unknown>, userId: string | undefined) => {
    if (userId === undefined || !ownerPath) return fields;
    if (ownerPath.length === 0)
      throw new SwitchboardError('forbidden', `A signed-in user cannot create other ${plural}.`);
    if (!ownerField) return fields;
    const named = fields[ownerField];
    if (named === undefined || named === null) return { ...fields, [ownerField]: userId };
    if (named !== userId)
      throw new SwitchboardError(
        'forbidden',
        `A signed-in user may write ${plural} of their own client only: ${ownerField} must be ${userId}.`,
        {
          details: [{ field: ownerField, code: 'not_owner', message: 'Only your own client may be named.' }],
        },
      );
    return fields;
  };

  /** Refuses a record that, once written, would not be the user's (joined to someone else's conversation). */
  const assertOwned = async (tx: Stores, userId: string | undefined, record: ResourceRecord) => {
    if (!(await owns(tx, userId, record)))
      throw new SwitchboardError(
        'forbidden',
        `A signed-in user may write ${plural} of their own client only.`,
        {
          details: [
            { field: ownerPath![0]?.field ?? 'id', code: 'not_owner', message: 'This is not yours.' },
          ],
        },
      );
  };

  const createIn = async (
    tx: Stores,
    input: Record<string, unknown>,
    userId?: string,
    via?: string,
  ): Promise<ResourceRecord> => {
    const fields = claim(input, userId);
    const now = isoAt(ctx.clock.now());
    let record: ResourceRecord = {
      id: ctx.ids(resource.idPrefix),
      ...complete(fields),
      ...(lifecycle ? { [lifecycle.field]: lifecycle.initial } : {}),
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    await checkReferences(tx, registry, resource, fields, userId);
    if (resource.prepare) record = await resource.prepare(record, relatedIn(tx, registry, userId));
    await assertOwned(tx, userId, record);
    await checkUnique(tx, resource, record, fields);
    await checkRule(tx, resource, record);
    await tx.resources.insert(name, record);
    await announce(tx, resource.events.created, record, {}, via);
    return view(record);
  };

  /** The stored record, if there is one and the user (when one) may see it. */
  const visibleIn = async (tx: Stores, userId: string | undefined, id: string) => {
    const record = await tx.resources.get(name, id);
    if (!record) return null;
    const mine = owns(tx, userId, record);
    return mine === true || (await mine) ? record : null;
  };

  const change = (
    id: string,
    input: Record<string, unknown>,
    options: WriteOptions,
    replace: boolean,
    caller: Principal | undefined,
  ): Promise<ResourceRecord> =>
    withRetry(options, () =>
      commit(ctx, async (tx) => {
        const userId = caller?.userId;
        const current = await visibleIn(tx, userId, id);
        if (!current) throw notFound(name, id);
        checkVersion(options, current.version);
        const fields = ownerField && resource.writable.includes(ownerField) ? claim(input, userId) : input;
        // A replace writes every writable field (absent ones cleared); immutable fields and the state stay.
        const written = replace
          ? Object.fromEntries(resource.writable.map((f) => [f, fields[f] ?? null]))
          : fields;
        const next: Record<string, unknown> = { ...current, ...written };
        const moved = lifecycle ? moveOf(resource, current, next) : undefined;
        if (!moved && fieldNames.every((f) => same(current[f], next[f]))) return current;
        await checkReferences(tx, registry, resource, fields, userId);
        const updated = {
          ...next,
          updatedAt: isoAt(ctx.clock.now()),
          version: current.version + 1,
        } as ResourceRecord;
        await assertOwned(tx, userId, updated);
        await checkUnique(tx, resource, updated, fields);
        await checkRule(tx, resource, updated);
        if (!(await tx.resources.update(name, updated, current.version))) return null;
        const previous = moved && previousOfState ? { [previousOfState]: current[stateField!] } : {};
        await announce(
          tx,
          moved ?? resource.events.updated,
          updated,
          { ...previous, [PREVIOUS_RECORD_FIELD]: current },
          caller?.via,
        );
        return updated;
      }),
    );

  /** The ids of a resource's records that meet `where`, all of them (a user's conversations). */
  const idsOf = async (target: string, where: ResourceQuery['where']): Promise<string[]> => {
    const ids: string[] = [];
    for (let offset = 0; ; offset += BATCH) {
      const page = await ctx.storage.resources.list(target, {
        where,
        sort: { field: 'createdAt', descending: false },
        range: { offset, limit: BATCH },
      });
      for (const record of page.items) ids.push(record.id);
      if (page.items.length < BATCH) return ids;
    }
  };

  // Not async: a versioned record is its own view, so the read's promise is handed on as it is.
  const find = (principal: Principal | undefined, id: string): Promise<ResourceRecord | null> => {
    if (principal) requireScope(principal, resource.scopes.read);
    const found = visibleIn(ctx.storage, principal?.userId, id);
    return resource.versioned ? found : found.then((record) => record && view(record));
  };

  // A change the declaration does not allow is refused here, whoever asks (the host's own calls too),
  // not only by the interfaces that leave its routes and mutations out.
  const declared = (change: keyof typeof resource.changes): void => {
    if (resource.changes[change]) return;
    const verb = { replace: 'replaced', update: 'changed', delete: 'deleted' }[change];
    throw new SwitchboardError(
      'method_not_allowed',
      `${capital(plural.replaceAll('-', ' '))} cannot be ${verb}: their declaration does not allow it.`,
    );
  };

  // One small object per caller, its methods shared: `for(principal)` runs on every request.
  class Acting implements ResourceService {
    readonly resource = resource;
    readonly ownerPath = ownerPath;
    constructor(private readonly principal?: Principal) {}

    private may(scope: string): void {
      if (this.principal) requireScope(this.principal, scope);
    }

    for(caller: Principal): ResourceService {
      return new Acting(caller);
    }

    sees(event: DomainEvent): boolean {
      const userId = this.principal?.userId;
      return userId === undefined || !ownerPath || event.owner === userId;
    }

    async exists(id: string): Promise<boolean> {
      return (await visibleIn(ctx.storage, this.principal?.userId, id)) !== null;
    }

    async create(input: unknown, options: CreateOptions<ResourceRecord> = {}): Promise<ResourceRecord> {
      this.may(resource.scopes.write);
      const fields = validate(resource.createInput, input);
      return commit(ctx, async (tx) => {
        const record = await createIn(tx, fields, this.principal?.userId, this.principal?.via);
        await options.within?.(tx, record);
        return record;
      });
    }

    async get(id: string): Promise<ResourceRecord> {
      const record = await find(this.principal, id);
      if (!record) throw notFound(name, id);
      return record;
    }

    async find(id: string): Promise<ResourceRecord | null> {
      return find(this.principal, id);
    }

    async list(query: ResourceListQuery): Promise<Page<ResourceRecord>> {
      this.may(resource.scopes.read);
      const userId = this.principal?.userId;
      let where = query.where ?? {};
      if (userId !== undefined && ownerPath) {
        const [field, owned] = await ownedWhere(ownerPath, userId, idsOf);
        const both = bothOf(where[field], owned);
        if (both === null) return { items: [], total: 0 };
        where = { ...where, [field]: both };
      }
      const page = await ctx.storage.resources.list(name, {
        where,
        sort: storedSort(query.sort ?? { field: resource.createdField, descending: false }),
        range: query.range,
      });
      return resource.versioned ? page : { items: page.items.map(view), total: page.total };
    }

    async replace(id: string, input: unknown, options: WriteOptions = {}): Promise<ResourceRecord> {
      declared('replace');
      this.may(resource.scopes.write);
      return change(id, validate(resource.replaceInput, input), options, true, this.principal);
    }

    async update(id: string, patch: unknown, options: WriteOptions = {}): Promise<ResourceRecord> {
      declared('update');
      this.may(resource.scopes.write);
      return change(id, validate(resource.patchInput, patch), options, false, this.principal);
    }

    async delete(id: string, options: WriteOptions = {}): Promise<void> {
      declared('delete');
      this.may(resource.scopes.write);
      const userId = this.principal?.userId;
      await withRetry(options, () =>
        commit(ctx, async (tx) => {
          const current = await visibleIn(tx, userId, id);
          if (!current) throw notFound(name, id);
          checkVersion(options, current.version);
          if (!(await tx.resources.delete(name, id, current.version))) return null;
          await deleteOwned(tx, registry, name, id);
          await announce(tx, resource.events.deleted, current, {}, this.principal?.via);
          // The tenant record (a client): its personal data leaves the event log with it.
          if (ownerPath?.length === 0) {
            keep ??= keptOnErasure([...registry.values()].map((s) => s.resource));
            await eraseOwner(tx, { owner: id, keep, at: ctx.clock.now() });
          }
          return true;
        }),
      );
    }
  }

  // The host's own calls: every record, no scope asked (a caller's go through `for`). Its methods are
  // bound, so that `const { create } = domain.resources.client` works as it always has.
  const system = new Acting();
  for (const method of [
    'for',
    'sees',
    'exists',
    'create',
    'get',
    'find',
    'list',
    'replace',
    'update',
    'delete',
  ] as const)
    Object.defineProperty(system, method, { value: system[method].bind(system) });
  return Object.assign(system, { createIn }) as InternalService;
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

/** Reads records inside the transaction at hand. */
function getIn(tx: Stores): (resource: string, id: string) => Promise<ResourceRecord | null> {
  return (resource, id) => tx.resources.get(resource, id);
}

/**
 * What a definition's hooks see of other records, inside the transaction at hand. What they create
 * for a signed-in user is that user's (the conversation a user's first message starts).
 */
function relatedIn(tx: Stores, registry: ResourceRegistry, userId?: string): Related {
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
      return service.createIn(tx, validate(service.resource.createInput, input), userId);
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
  return resource.moveEvents[to]!;
}

/**
 * Every reference written must name an existing record: a dangling id is refused, not stored. For a
 * signed-in user a record of another client is as absent, so its id cannot be probed.
 */
async function checkReferences(
  tx: Stores,
  registry: ResourceRegistry,
  resource: Resource,
  fields: Record<string, unknown>,
  userId: string | undefined,
): Promise<void> {
  for (const [field, target] of Object.entries(resource.relations)) {
    const id = fields[field];
    if (typeof id !== 'string') continue;
    const found = await tx.resources.get(target, id);
    const path = registry.get(target)?.ownerPath;
    if (found && (userId === undefined || !path || (await ownerOf(path, found, getIn(tx))) === userId))
      continue;
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

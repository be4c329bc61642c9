/**
 * The service of a resource typed from its declaration: the same object every interface calls, seen
 * through the record, create, patch, replace and filter types its declaration implies (wire-types.ts).
 * A built-in's and a host's resource get the same façade, with no type written beside either.
 */
import type { Principal } from '../auth.js';
import type { DomainEvent } from '../events.js';
import type { Resource } from '../resources/define.js';
import type { OwnerPath } from '../resources/ownership.js';
import type { ResourceService } from '../resources/service.js';
import type {
  DeclarationOf,
  ListWhere,
  SortField,
  WireCreate,
  WirePatch,
  WireRecord,
  WireReplace,
} from '../resources/wire-types.js';
import type { Page, Range, ResourceRecord } from '../storage/index.js';
import type { CreateOptions, WriteOptions } from './context.js';

/** Whether `R` carries the declaration it was made from (`defineResource`'s result does). */
type Declared<R> = [DeclarationOf<R>] extends [never] ? false : true;

/**
 * A record of a resource as its service returns it: the declared fields (an optional one `null` when
 * not set), the life-cycle state, and `createdAt`/`updatedAt`/`version` (`timestamp` for a record
 * that never changes). API version 1's shape; a later version's is `WireRecord<…, n>`.
 *
 * @example
 * type Return = RecordOf<typeof returns>;
 */
export type RecordOf<R> = Declared<R> extends true ? WireRecord<DeclarationOf<R>, 1> : ResourceRecord;

/** A create body of a resource, as its declaration takes it. */
export type CreateOf<R> =
  Declared<R> extends true ? WireCreate<DeclarationOf<R>, 1> : Record<string, unknown>;

/** A full replacement (every writable field) of a resource's record. */
export type ReplaceOf<R> = Declared<R> extends true ? WireReplace<DeclarationOf<R>> : Record<string, unknown>;

/** A merge patch of a resource's record: any writable field, and the life-cycle field to move it. */
export type PatchOf<R> = Declared<R> extends true ? WirePatch<DeclarationOf<R>> : Record<string, unknown>;

/** What a typed list asks for: conditions on the fields lists match, a sort key, a range. */
export interface ListQueryOf<R> {
  readonly where?: Declared<R> extends true ? ListWhere<DeclarationOf<R>> : NonNullable<ResourceListWhere>;
  readonly sort?: {
    readonly field: Declared<R> extends true ? SortField<DeclarationOf<R>> : string;
    readonly descending: boolean;
  };
  readonly range: Range;
}
type ResourceListWhere = Parameters<ResourceService['list']>[0]['where'];

type ChangeMethod = 'replace' | 'update' | 'delete';

/** The changes a declaration does not let callers make: all with `changes: false`, else those set `false`. */
type Refused<R> =
  DeclarationOf<R> extends { changes: false }
    ? ChangeMethod
    : DeclarationOf<R> extends { changes: infer C }
      ? { [K in ChangeMethod]: C extends { [P in K]: false } ? K : never }[ChangeMethod]
      : never;

/**
 * A resource's service, typed from its declaration: `domain.orders`, or `domain.of(returns)` for a
 * host's resource. Every write is validated against the declaration (a value of the right type can
 * still be refused, e.g. an e-mail address that is not one) and publishes its event in the same
 * transaction; a life-cycle move goes through `update` (`{ status: 'paid' }`). The changes the
 * declaration does not allow callers (`changes`) are not there: an order has no `replace` or
 * `delete`, a message no `update`.
 *
 * @example
 * const order = await domain.orders.create({ clientId, total: '12.50', currency: 'EUR' });
 * await domain.orders.update(order.id, { status: 'paid' });
 * const paid = await domain.orders.list({ where: { clientId, status: 'paid' }, range: { offset: 0, limit: 20 } });
 */
export type TypedService<R = Resource> = Omit<EveryMethod<R>, Refused<R>>;

/** Every method a resource's service has; {@link TypedService} leaves out those its declaration refuses. */
interface EveryMethod<R> {
  readonly resource: Resource;
  /** The way from a record to the client that owns it; undefined when no client owns these records. */
  readonly ownerPath: OwnerPath | undefined;
  /** The same service acting for a caller: see {@link ResourceService.for}. */
  for(principal: Principal): TypedService<R>;
  /** Whether the caller may receive this event of the resource. */
  sees(event: DomainEvent): boolean;
  /** Whether the record exists and is the caller's to reach. */
  exists(id: string): Promise<boolean>;
  /** Validates and creates a record in the initial state; publishes the created event. */
  create(input: CreateOf<R>, options?: CreateOptions<RecordOf<R>>): Promise<RecordOf<R>>;
  /** The record, or a `not_found` error. */
  get(id: string): Promise<RecordOf<R>>;
  find(id: string): Promise<RecordOf<R> | null>;
  list(query: ListQueryOf<R>): Promise<Page<RecordOf<R>>>;
  /** Full replacement of the writable fields; publishes the updated event when something changed. */
  replace(id: string, input: ReplaceOf<R>, options?: WriteOptions): Promise<RecordOf<R>>;
  /** Merge patch; the life-cycle field moves the record (a move it does not allow is a `conflict`). */
  update(id: string, patch: PatchOf<R>, options?: WriteOptions): Promise<RecordOf<R>>;
  /** Deletes the record and the records it owns; publishes the deleted event. */
  delete(id: string, options?: WriteOptions): Promise<void>;
}

/**
 * The service of `resource`, typed from its declaration. The one place the untyped service meets the
 * declaration's types, by assertion: the service validates every input against that declaration and
 * writes records of the shape it declares, which the types say at compile time.
 */
export function typedService<R extends Resource>(service: ResourceService, resource: R): TypedService<R> {
  if (service.resource !== resource)
    throw new Error(`The service of "${service.resource.name}" is not made from this declaration.`);
  return service as TypedService<R>;
}

/** The typed surface of the client: one resource client per resource, typed from its declaration. */
import type {
  bookings,
  clients,
  conversations,
  messages,
  orders,
} from '../core/resources/built-ins/index.js';
import type { DeclaredResource } from '../core/resources/define.js';
import type {
  DeclarationOf,
  DeclaredShape,
  PluralOf,
  WireCreate,
  WireFilters,
  WirePatch,
  WireRecord,
  WireReplace,
  WireSort,
} from '../core/resources/wire-types.js';

/** The resources every switchboard serves. */
export type BuiltInResource =
  | typeof clients
  | typeof orders
  | typeof conversations
  | typeof messages
  | typeof bookings;

/** One page of a list, as the server sends it. */
export interface Page<T> {
  readonly items: T[];
  /** From 1. */
  readonly page: number;
  readonly limit: number;
  /** Records matching the filters, on every page. */
  readonly total: number;
  /** The next page's link (path-absolute), or null on the last page. */
  readonly next: string | null;
}

/** `page` and `limit`, the resource's filters, and `sort`. */
export type ListQuery<D extends DeclaredShape> = D extends unknown
  ? { [K in keyof Query<D>]: Query<D>[K] }
  : never;
type Query<D extends DeclaredShape> = WireFilters<D> & {
  readonly page?: number;
  readonly limit?: number;
  readonly sort?: WireSort<D>;
};

/** The wire shapes of one resource in one API version: what its calls take and answer. */
export interface WireTypes {
  readonly record: unknown;
  readonly create: unknown;
  readonly patch: unknown;
  readonly replace: unknown;
  readonly query: unknown;
}

/** The {@link WireTypes} of a declaration for API version `V`. */
export type WireTypesOf<D extends DeclaredShape, V extends number> = D extends unknown
  ? // A conditional, so editors show the shapes themselves rather than this name over the declaration.
    {
      record: WireRecord<D, V>;
      create: WireCreate<D, V>;
      patch: WirePatch<D>;
      replace: WireReplace<D>;
      query: ListQuery<D>;
    }
  : never;

/** Per call: an abort signal. */
export interface CallOptions {
  readonly signal?: AbortSignal;
}

/** A create: the `Idempotency-Key` to send (one is made when absent; retries of this call reuse it). */
export interface CreateOptions extends CallOptions {
  readonly idempotencyKey?: string;
}

/** A change: the version it expects (`If-Match`), so a change made meanwhile is a 412, not lost. */
export interface ChangeOptions extends CallOptions {
  readonly ifVersion?: number;
}

/** The calls on one resource, typed by its wire shapes ({@link WireTypesOf} its declaration). */
export interface ResourceClient<T extends WireTypes> {
  /** One page (default the first, 20 records). */
  list(query?: T['query'], options?: CallOptions): Promise<Page<T['record']>>;
  /** Every page in turn, following the server's `next` links. */
  pages(query?: T['query'], options?: CallOptions): AsyncIterable<Page<T['record']>>;
  /** Every matching record, a page at a time. */
  all(query?: T['query'], options?: CallOptions): AsyncIterable<T['record']>;
  /** The record; a `SwitchboardApiError` with status 404 when there is none. */
  get(id: string, options?: CallOptions): Promise<T['record']>;
  create(input: T['create'], options?: CreateOptions): Promise<T['record']>;
  /** JSON Merge Patch: only the fields sent change; the life-cycle field moves the record. */
  update(id: string, patch: T['patch'], options?: ChangeOptions): Promise<T['record']>;
  /** Every writable field; an optional one left out is cleared. */
  replace(id: string, input: T['replace'], options?: ChangeOptions): Promise<T['record']>;
  delete(id: string, options?: ChangeOptions): Promise<void>;
}

/** The client: a {@link ResourceClient} under each resource's plural (`api.orders`, `api.returns`). */
export type SwitchboardClient<R extends DeclaredResource, V extends number> = {
  readonly [K in R as PluralOf<DeclarationOf<K>>]: ResourceClient<WireTypesOf<DeclarationOf<K>, V>>;
};

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
export type ListQuery<D extends DeclaredShape> = WireFilters<D> & {
  readonly page?: number;
  readonly limit?: number;
  readonly sort?: WireSort<D>;
};

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

/** The calls on one resource, typed from its declaration for API version `V`. */
export interface ResourceClient<D extends DeclaredShape, V extends number> {
  /** One page (default the first, 20 records). */
  list(query?: ListQuery<D>, options?: CallOptions): Promise<Page<WireRecord<D, V>>>;
  /** Every page in turn, following the server's `next` links. */
  pages(query?: ListQuery<D>, options?: CallOptions): AsyncIterable<Page<WireRecord<D, V>>>;
  /** Every matching record, a page at a time. */
  all(query?: ListQuery<D>, options?: CallOptions): AsyncIterable<WireRecord<D, V>>;
  /** The record; a `SwitchboardApiError` with status 404 when there is none. */
  get(id: string, options?: CallOptions): Promise<WireRecord<D, V>>;
  create(input: WireCreate<D, V>, options?: CreateOptions): Promise<WireRecord<D, V>>;
  /** JSON Merge Patch: only the fields sent change; the life-cycle field moves the record. */
  update(id: string, patch: WirePatch<D>, options?: ChangeOptions): Promise<WireRecord<D, V>>;
  /** Every writable field; an optional one left out is cleared. */
  replace(id: string, input: WireReplace<D>, options?: ChangeOptions): Promise<WireRecord<D, V>>;
  delete(id: string, options?: ChangeOptions): Promise<void>;
}

/** The client: a {@link ResourceClient} under each resource's plural (`api.orders`, `api.returns`). */
export type SwitchboardClient<R extends DeclaredResource, V extends number> = {
  readonly [K in R as PluralOf<DeclarationOf<K>>]: ResourceClient<DeclarationOf<K>, V>;
};

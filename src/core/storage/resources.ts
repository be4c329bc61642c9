import type { Page, Range } from './page.js';

/** A record of a declared resource (src/core/resources): its fields, with the columns every record has. */
export interface ResourceRecord {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
  readonly [field: string]: unknown;
}

/**
 * A value a list matches: equal to it, (a list of strings) equal to one of them, or (`contains`) a
 * text holding it, ignoring case.
 */
export type ResourceMatch =
  | string
  | number
  | boolean
  | null
  | readonly string[]
  | { readonly contains: string };

/** What a list asks for: conditions on fields (all must hold), one sort key, a range. */
export interface ResourceQuery {
  /** Field → what every record listed has there (`null` matches a missing value). `id` may be one. */
  readonly where: Readonly<Record<string, ResourceMatch>>;
  readonly sort: { readonly field: string; readonly descending: boolean };
  readonly range: Range;
}

/** What an adapter may index of a resource: the fields lists find records by, and those that are unique. */
export interface ResourceLayout {
  readonly name: string;
  /** Fields lists filter on by equality (filters, relations, groupings, the life-cycle field). */
  readonly filters: readonly string[];
  readonly unique: readonly string[];
}

/**
 * The records of every declared resource, by resource name. Writes are compare-and-set on `version`,
 * like the built-in records; ids are unique per resource.
 */
export interface ResourceStore {
  insert(resource: string, record: ResourceRecord): Promise<void>;
  get(resource: string, id: string): Promise<ResourceRecord | null>;
  /** Replaces the record if its stored version is still `expectedVersion`; false when it is not. */
  update(resource: string, record: ResourceRecord, expectedVersion: number): Promise<boolean>;
  /** Deletes the record if its stored version is still `expectedVersion`; false when it is not. */
  delete(resource: string, id: string, expectedVersion: number): Promise<boolean>;
  list(resource: string, query: ResourceQuery): Promise<Page<ResourceRecord>>;
  /**
   * Inside a transaction, waits until no other transaction holds the same resource's lock, and holds
   * it until commit: writes whose rule reads other records (no two confirmed bookings overlap) then
   * run one at a time across every instance.
   */
  lock(resource: string): Promise<void>;
  /**
   * Makes lists of these resources fast, e.g. PostgreSQL indexes per filtered field, and answers what
   * it could not do (a unique index over values that repeat). Idempotent; called at start-up by
   * `createSwitchboard` (again if it throws). Optional: correctness never depends on it.
   */
  prepare?(layouts: readonly ResourceLayout[]): Promise<readonly string[]>;
}

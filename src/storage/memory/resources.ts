import { SwitchboardError } from '../../core/errors.js';
import type { ResourceMatch, ResourceRecord, ResourceStore } from '../../core/storage/index.js';
import { inOrder, type Journal, put, remove } from './journal.js';

type Value = string | number | boolean | null;
/**
 * Field → value → the records holding it, by id. The records themselves, not their ids: a list reads
 * them without a second lookup per record.
 */
type FieldIndexes = Map<string, FieldIndex>;
type FieldIndex = Map<Value, Map<string, ResourceRecord>>;

/** Every resource's records (id → record, in insertion order) and the hash indexes lists built. */
export interface ResourceState {
  readonly records: Map<string, Map<string, ResourceRecord>>;
  /**
   * Built on a field's first equality filter and kept up to date by every write; dropped whenever a
   * transaction rolls back (rebuilt on the next list), so they never hold what the records do not.
   */
  readonly indexes: Map<string, FieldIndexes>;
}

export function createResourceState(): ResourceState {
  return { records: new Map(), indexes: new Map() };
}

export function memoryResourceStore(state: ResourceState, journal: Journal): ResourceStore {
  const of = (resource: string): Map<string, ResourceRecord> => {
    let records = state.records.get(resource);
    if (!records) {
      records = new Map();
      state.records.set(resource, records);
    }
    return records;
  };
  /** Moves the record's entries in the resource's indexes from `before` to `after`. */
  const reindex = (
    resource: string,
    before: ResourceRecord | undefined,
    after: ResourceRecord | undefined,
  ) => {
    const indexes = state.indexes.get(resource);
    if (!indexes) return;
    for (const [field, index] of indexes) {
      const id = (before ?? after)!.id;
      if (before) index.get(keyOf(before[field]))?.delete(id);
      if (after) holdersOf(index, keyOf(after[field])).set(id, after);
    }
  };
  const write = (resource: string, record: ResourceRecord) => {
    const records = of(resource);
    const stored = Object.freeze({ ...record });
    reindex(resource, records.get(record.id), stored);
    put(journal, records, record.id, stored);
  };
  return {
    async insert(resource, record) {
      if (of(resource).has(record.id))
        throw new SwitchboardError('conflict', `A ${resource} with id ${record.id} exists already.`);
      write(resource, record);
    },
    async get(resource, id) {
      return state.records.get(resource)?.get(id) ?? null;
    },
    async update(resource, record, expectedVersion) {
      if (of(resource).get(record.id)?.version !== expectedVersion) return false;
      write(resource, record);
      return true;
    },
    async delete(resource, id, expectedVersion) {
      const records = of(resource);
      const current = records.get(id);
      if (current?.version !== expectedVersion) return false;
      reindex(resource, current, undefined);
      return remove(journal, records, id);
    },
    // Memory transactions already run one at a time.
    async lock() {},
    async list(resource, { where, sort, range }) {
      const records = of(resource);
      const conditions = Object.entries(where);
      const { candidates, exact } = candidatesOf(state, resource, records, conditions);
      // What the index gave is exact for its own condition; the others are checked here.
      const rest = conditions.filter(([field]) => field !== exact);
      // An index's candidates come in an array of this list's own, sorted in place below.
      const matches =
        rest.length === 0 && Array.isArray(candidates) ? candidates : matching(candidates, rest);
      const { field } = sort;
      const direction = sort.descending ? -1 : 1;
      inOrder(matches, (a, b) => direction * compare(a[field], b[field]) || compare(a.id, b.id));
      return { items: matches.slice(range.offset, range.offset + range.limit), total: matches.length };
    },
  };
}

/**
 * The records that may match: through the index of the most selective equality condition, or every
 * record when there is none. What they hold is still checked against every condition.
 */
function candidatesOf(
  state: ResourceState,
  resource: string,
  records: Map<string, ResourceRecord>,
  conditions: [string, ResourceMatch][],
): { candidates: Iterable<ResourceRecord>; exact?: string } {
  // Each group holds the records of one value; a list of values (deduplicated) takes several groups.
  let best: { field: string; groups: Map<string, ResourceRecord>[]; size: number } | undefined;
  for (const [field, match] of conditions) {
    if (match !== null && typeof match === 'object' && !Array.isArray(match)) continue;
    const index = indexOf(state, resource, records, field);
    const groups: Map<string, ResourceRecord>[] = [];
    let size = 0;
    for (const value of Array.isArray(match) ? new Set(match) : [match as Value]) {
      const group = index.get(value);
      if (group) {
        groups.push(group);
        size += group.size;
      }
    }
    if (!best || size < best.size) best = { field, groups, size };
  }
  if (!best) return { candidates: records.values() };
  const found: ResourceRecord[] = [];
  for (const group of best.groups) for (const record of group.values()) found.push(record);
  return { candidates: found, exact: best.field };
}

function matching(
  candidates: Iterable<ResourceRecord>,
  conditions: [string, ResourceMatch][],
): ResourceRecord[] {
  const matches: ResourceRecord[] = [];
  for (const record of candidates)
    if (conditions.every(([field, match]) => matchesValue(record[field], match))) matches.push(record);
  return matches;
}

function indexOf(
  state: ResourceState,
  resource: string,
  records: Map<string, ResourceRecord>,
  field: string,
): FieldIndex {
  let indexes = state.indexes.get(resource);
  if (!indexes) {
    indexes = new Map();
    state.indexes.set(resource, indexes);
  }
  let index = indexes.get(field);
  if (!index) {
    index = new Map();
    for (const record of records.values()) holdersOf(index, keyOf(record[field])).set(record.id, record);
    indexes.set(field, index);
  }
  return index;
}

function holdersOf(index: FieldIndex, value: Value): Map<string, ResourceRecord> {
  let holders = index.get(value);
  if (!holders) {
    holders = new Map();
    index.set(value, holders);
  }
  return holders;
}

/** What an index files a value under: objects (not filtered on by equality) under null. */
function keyOf(value: unknown): Value {
  return value === undefined || (typeof value === 'object' && value !== null) ? null : (value as Value);
}

function matchesValue(value: unknown, match: ResourceMatch): boolean {
  if (Array.isArray(match)) return match.includes(value as string);
  if (match !== null && typeof match === 'object')
    return (
      typeof value === 'string' &&
      value.toLowerCase().includes((match as { contains: string }).contains.toLowerCase())
    );
  return (value ?? null) === match;
}

/** Missing values last, as PostgreSQL sorts NULLs in ascending order. */
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return (a as string | number) < (b as string | number) ? -1 : 1;
}

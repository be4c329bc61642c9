import type { ResourceRecord, ResourceStore } from '../../core/storage/index.js';
import { type Journal, put, remove } from './journal.js';

/** Resource name → id → record, in insertion order. */
export type ResourceState = Map<string, Map<string, ResourceRecord>>;

export function memoryResourceStore(state: ResourceState, journal: Journal): ResourceStore {
  const of = (resource: string): Map<string, ResourceRecord> => {
    let records = state.get(resource);
    if (!records) {
      records = new Map();
      state.set(resource, records);
    }
    return records;
  };
  return {
    async insert(resource, record) {
      const records = of(resource);
      if (records.has(record.id)) throw new Error(`A ${resource} with id ${record.id} exists already.`);
      put(journal, records, record.id, record);
    },
    async get(resource, id) {
      return state.get(resource)?.get(id) ?? null;
    },
    async update(resource, record, expectedVersion) {
      const records = of(resource);
      if (records.get(record.id)?.version !== expectedVersion) return false;
      put(journal, records, record.id, record);
      return true;
    },
    async delete(resource, id, expectedVersion) {
      const records = of(resource);
      if (records.get(id)?.version !== expectedVersion) return false;
      return remove(journal, records, id);
    },
    // Memory transactions already run one at a time.
    async lock() {},
    async list(resource, { where, sort, range }) {
      const conditions = Object.entries(where);
      const matches = [...(state.get(resource)?.values() ?? [])].filter((record) =>
        conditions.every(([field, value]) =>
          Array.isArray(value) ? value.includes(record[field] as string) : (record[field] ?? null) === value,
        ),
      );
      const direction = sort.descending ? -1 : 1;
      matches.sort((a, b) => direction * compare(a[sort.field], b[sort.field]) || compare(a.id, b.id));
      return { items: matches.slice(range.offset, range.offset + range.limit), total: matches.length };
    },
  };
}

/** Missing values last, as PostgreSQL sorts NULLs in ascending order. */
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return (a as string | number) < (b as string | number) ? -1 : 1;
}

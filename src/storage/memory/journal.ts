/**
 * Undo log for in-memory transactions: every write records how to take itself back, and a failed
 * transaction replays those in reverse. Outside a transaction the journal records nothing.
 */
export interface Journal {
  record(undo: () => void): void;
}

export const noJournal: Journal = { record: () => {} };

/** `map.set` that the journal can take back. */
export function put<K, V>(journal: Journal, map: Map<K, V>, key: K, value: V): void {
  const had = map.has(key);
  const previous = map.get(key);
  map.set(key, value);
  journal.record(() => (had ? map.set(key, previous as V) : map.delete(key)));
}

/** `map.delete` that the journal can take back. */
export function remove<K, V>(journal: Journal, map: Map<K, V>, key: K): boolean {
  if (!map.has(key)) return false;
  const previous = map.get(key) as V;
  map.delete(key);
  journal.record(() => map.set(key, previous));
  return true;
}

/** Runs transactions one at a time, so the check-then-write inside each one cannot interleave. */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.catch(() => {});
    return result;
  }
}

/** Stable order of records by creation time (epoch ms), then id (what PostgreSQL's ORDER BY gives). */
export function byTimeThenId<T extends { id: string }>(time: (record: T) => number): (a: T, b: T) => number {
  return (a, b) => {
    const ta = time(a);
    const tb = time(b);
    if (ta !== tb) return ta - tb;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

/**
 * Sorts in place, unless the items are in order already: records are kept in insertion order, which is
 * creation order whenever the clock does not go back, so the usual list costs one pass, not a sort.
 */
export function inOrder<T>(items: T[], compare: (a: T, b: T) => number): T[] {
  for (let i = 1; i < items.length; i++)
    if (compare(items[i - 1]!, items[i]!) > 0) return items.sort(compare);
  return items;
}

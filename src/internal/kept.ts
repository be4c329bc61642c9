/**
 * The value kept in `cache` under `key`, made by `make` the first time; the cache holds at most `limit`
 * values, the oldest made going first. For what costs more to make than to look up and is asked for
 * with the same few keys over and over (an imported signing key).
 */
export function kept<T>(cache: Map<string, T>, key: string, limit: number, make: () => T): T {
  const found = cache.get(key);
  if (found !== undefined) return found;
  const made = make();
  if (cache.size >= limit) cache.delete(cache.keys().next().value as string);
  cache.set(key, made);
  return made;
}

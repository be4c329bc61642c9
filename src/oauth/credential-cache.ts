import type { CredentialChange } from './credential-changes.js';

/** What a cached credential belongs to, so a change to any of them drops it. */
export interface CredentialOwners {
  readonly apiKey?: string;
  readonly grant?: string;
  readonly client?: string;
}

/** The bound and safety TTL of the credentials the guard keeps in memory (`GuardOptions.cache`). */
export interface CredentialCacheOptions {
  /** At most this many credentials are held; the one stored longest ago goes first (default 10 000). */
  readonly maxEntries?: number;
  /** A credential is read again from storage after this long, whatever the bus said (default 5 s). */
  readonly ttlMs?: number;
}

/**
 * The guard's bounded memory of credentials it found valid, by the hash of the token (never the token).
 * Only valid credentials are held, so guessing tokens cannot fill it. Changes drop entries; so does the
 * safety TTL, which bounds how long a change whose message was lost goes unseen.
 */
export interface CredentialCache<T> {
  get(hash: string, now: number): T | undefined;
  /**
   * Marks the start of a storage read: the result is held only if nothing changed since, so a read that
   * raced a revocation is not kept.
   */
  generation(): number;
  set(hash: string, value: T, owners: CredentialOwners, since: number, now: number): void;
  /** Drops what belongs to the change; everything when `null` (messages may have been missed). */
  forget(change: CredentialChange | null): void;
  readonly size: number;
}

interface Entry<T> {
  readonly value: T;
  readonly owners: CredentialOwners;
  readonly storedAt: number;
}

/**
 * A {@link CredentialCache}: a `Map` in the order entries were stored, scanned on change. A hit does not
 * move its entry: each lives at most `ttlMs` anyway, and a delete and set per request cost more than
 * the rest of the lookup.
 */
export function createCredentialCache<T>(options: CredentialCacheOptions = {}): CredentialCache<T> {
  const maxEntries = options.maxEntries ?? 10_000;
  const ttlMs = options.ttlMs ?? 5_000;
  const entries = new Map<string, Entry<T>>();
  let generation = 0;

  return {
    get(hash, now) {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.storedAt + ttlMs > now && entry.storedAt <= now) return entry.value;
      entries.delete(hash);
      return undefined;
    },
    generation: () => generation,
    set(hash, value, owners, since, now) {
      if (since !== generation || maxEntries <= 0) return;
      entries.delete(hash);
      entries.set(hash, { value, owners, storedAt: now });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    forget(change) {
      generation++;
      if (change === null) {
        entries.clear();
        return;
      }
      // Revocations are rare: a scan of at most maxEntries beats keeping indexes up to date on every set.
      for (const [hash, { owners }] of entries) {
        if (
          ('apiKey' in change && owners.apiKey === change.apiKey) ||
          ('grant' in change && owners.grant === change.grant) ||
          ('client' in change && owners.client === change.client)
        ) {
          entries.delete(hash);
        }
      }
    },
    get size() {
      return entries.size;
    },
  };
}

/**
 * Static API keys for machine-to-machine access to organisation-wide data: stored hashed (SHA-256 hex of
 * the whole key), scoped, revocable, with the time of last use. The key itself is shown once, at creation.
 */

/** One API key. Instants are epoch milliseconds. */

export interface ApiKeyRecord {
  readonly id: string;
  /** The first characters of the key (e.g. `sbk_7hq2m4`), so people can tell keys apart; not secret. */
  readonly prefix: string;
  readonly hash: string;
  readonly name: string;
  readonly scopes: readonly string[];
  readonly createdAt: number;
  readonly revokedAt: number | null;
  readonly lastUsedAt: number | null;
}

/** API keys: looked up by hash on every request, listed and revoked by id. */
export interface ApiKeyStore {
  /** Throws a `conflict` SwitchboardError when the id or hash is taken. */
  insert(key: ApiKeyRecord): Promise<void>;
  get(id: string): Promise<ApiKeyRecord | null>;
  /** The lookup on every request: by hash, revoked keys included (the caller checks `revokedAt`). */
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  /** Ordered by `createdAt`, then `id`. */
  list(): Promise<ApiKeyRecord[]>;
  /** Sets `revokedAt` once; false when absent or already revoked. */
  revoke(id: string, at: number): Promise<boolean>;
  /** Records a use: sets `lastUsedAt`. */
  touch(id: string, at: number): Promise<void>;
  /** Replaces the key's scopes; false when absent. */
  setScopes(id: string, scopes: readonly string[]): Promise<boolean>;
}

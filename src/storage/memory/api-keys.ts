import { SwitchboardError } from '../../core/errors.js';
import type { ApiKeyRecord, ApiKeyStore } from '../../core/storage/index.js';
import { byTimeThenId, type Journal, put } from './journal.js';

export interface ApiKeyState {
  readonly keys: Map<string, ApiKeyRecord>;
  /** hash → id: the unique index the per-request lookup uses. */
  readonly byHash: Map<string, string>;
}

export function createApiKeyState(): ApiKeyState {
  return { keys: new Map(), byHash: new Map() };
}

const byCreation = byTimeThenId<ApiKeyRecord>((k) => k.createdAt);

export function memoryApiKeyStore(state: ApiKeyState, journal: Journal): ApiKeyStore {
  const replace = (key: ApiKeyRecord): void => put(journal, state.keys, key.id, Object.freeze({ ...key }));
  return {
    async insert(key) {
      if (state.keys.has(key.id) || state.byHash.has(key.hash)) {
        throw new SwitchboardError('conflict', 'An API key with this id or value already exists.');
      }
      replace(key);
      put(journal, state.byHash, key.hash, key.id);
    },
    async get(id) {
      return state.keys.get(id) ?? null;
    },
    async findByHash(hash) {
      const id = state.byHash.get(hash);
      return id === undefined ? null : (state.keys.get(id) ?? null);
    },
    async list() {
      return [...state.keys.values()].sort(byCreation);
    },
    async revoke(id, at) {
      const key = state.keys.get(id);
      if (!key || key.revokedAt !== null) return false;
      replace({ ...key, revokedAt: at });
      return true;
    },
    async touch(id, at) {
      const key = state.keys.get(id);
      if (key) replace({ ...key, lastUsedAt: at });
    },
    async setScopes(id, scopes) {
      const key = state.keys.get(id);
      if (!key) return false;
      replace({ ...key, scopes: [...scopes] });
      return true;
    },
  };
}

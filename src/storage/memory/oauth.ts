import { SwitchboardError } from '../../core/errors.js';
import type {
  AccessTokenRecord,
  AuthorizationCodeRecord,
  GrantRecord,
  OAuthClientRecord,
  OAuthStores,
  RefreshTokenRecord,
} from '../../core/storage/index.js';
import { GRANT_LIST_LIMIT } from '../../core/storage/oauth.js';
import { byTimeThenId, type Journal, put, remove } from './journal.js';

export interface OAuthState {
  readonly clients: Map<string, OAuthClientRecord>;
  readonly codes: Map<string, AuthorizationCodeRecord>;
  readonly grants: Map<string, GrantRecord>;
  readonly refreshTokens: Map<string, RefreshTokenRecord>;
  readonly accessTokens: Map<string, AccessTokenRecord>;
}

export function createOAuthState(): OAuthState {
  return {
    clients: new Map(),
    codes: new Map(),
    grants: new Map(),
    refreshTokens: new Map(),
    accessTokens: new Map(),
  };
}

const byCreation = byTimeThenId<OAuthClientRecord>((c) => c.createdAt);

/**
 * Compare-and-set writes (`consume`, `use`) are atomic because nothing awaits between the check and
 * the write, which is what a single `UPDATE … WHERE … IS NULL` gives in SQL.
 */
export function memoryOAuthStores(state: OAuthState, journal: Journal): OAuthStores {
  return {
    clients: {
      async get(id) {
        return state.clients.get(id) ?? null;
      },
      async list() {
        return [...state.clients.values()].sort(byCreation);
      },
      async insert(client) {
        if (state.clients.has(client.id)) {
          throw new SwitchboardError('conflict', `An OAuth client with id "${client.id}" already exists.`);
        }
        put(journal, state.clients, client.id, freeze(client));
      },
      async update(client) {
        if (!state.clients.has(client.id)) return false;
        put(journal, state.clients, client.id, freeze(client));
        return true;
      },
      async delete(id) {
        return remove(journal, state.clients, id);
      },
    },
    codes: {
      async insert(code) {
        put(journal, state.codes, code.codeHash, freeze(code));
      },
      async consume(codeHash, now) {
        const code = state.codes.get(codeHash);
        if (!code) return { state: 'missing' };
        if (code.consumedAt !== null) return { state: 'reused', code };
        const consumed = freeze({ ...code, consumedAt: now });
        put(journal, state.codes, codeHash, consumed);
        return { state: 'consumed', code: consumed };
      },
    },
    grants: {
      async insert(grant) {
        if (state.grants.has(grant.id)) {
          throw new SwitchboardError('conflict', `A grant with id "${grant.id}" already exists.`);
        }
        put(journal, state.grants, grant.id, freeze(grant));
      },
      async get(id) {
        return state.grants.get(id) ?? null;
      },
      async list({ userId, clientId, live }) {
        // A scan: the memory adapter is the reference, not the fast path (PostgreSQL uses an index).
        const found: GrantRecord[] = [];
        for (const grant of state.grants.values()) {
          if (userId !== undefined && grant.userId !== userId) continue;
          if (clientId !== undefined && grant.clientId !== clientId) continue;
          if (live && (grant.revokedAt !== null || grant.expiresAt <= live.now)) continue;
          found.push(grant);
        }
        return found.sort(newestFirst).slice(0, GRANT_LIST_LIMIT);
      },
      async revoke(id, now) {
        const grant = state.grants.get(id);
        if (!grant) return false;
        if (grant.revokedAt === null) put(journal, state.grants, id, freeze({ ...grant, revokedAt: now }));
        return true;
      },
      async revokeByClient(clientId, now) {
        let count = 0;
        for (const grant of [...state.grants.values()]) {
          if (grant.clientId !== clientId || grant.revokedAt !== null) continue;
          put(journal, state.grants, grant.id, freeze({ ...grant, revokedAt: now }));
          count++;
        }
        return count;
      },
      async widen(id, { scopes, resources, expiresAt }, now) {
        const grant = state.grants.get(id);
        if (!grant || grant.revokedAt !== null || grant.expiresAt <= now) return null;
        const { resources: _, ...rest } = grant;
        const widened = freeze({ ...rest, scopes, ...(resources.length ? { resources } : {}), expiresAt });
        put(journal, state.grants, id, widened);
        return widened;
      },
    },
    refreshTokens: {
      async insert(token) {
        put(journal, state.refreshTokens, token.tokenHash, freeze(token));
      },
      async get(tokenHash) {
        return state.refreshTokens.get(tokenHash) ?? null;
      },
      async use(tokenHash, now) {
        const token = state.refreshTokens.get(tokenHash);
        if (!token) return { state: 'missing' };
        if (token.usedAt !== null) return { state: 'used', token };
        const used = freeze({ ...token, usedAt: now });
        put(journal, state.refreshTokens, tokenHash, used);
        return { state: 'fresh', token: used };
      },
    },
    accessTokens: {
      async insert(token) {
        put(journal, state.accessTokens, token.tokenHash, freeze(token));
      },
      async get(tokenHash) {
        return state.accessTokens.get(tokenHash) ?? null;
      },
      async delete(tokenHash) {
        return remove(journal, state.accessTokens, tokenHash);
      },
    },
    async deleteExpired(before) {
      let count = 0;
      const gone = new Set<string>();
      for (const [id, grant] of state.grants) {
        if (grant.expiresAt < before && remove(journal, state.grants, id)) {
          gone.add(id);
          count++;
        }
      }
      const sweep = <T extends { expiresAt: number }>(
        map: Map<string, T>,
        grantOf: (record: T) => string,
      ): void => {
        for (const [key, record] of map) {
          if ((record.expiresAt < before || gone.has(grantOf(record))) && remove(journal, map, key)) count++;
        }
      };
      sweep(state.codes, (c) => c.grantId);
      sweep(state.refreshTokens, (t) => t.grantId);
      sweep(state.accessTokens, (t) => t.grantId);
      return count;
    },
  };
}

function newestFirst(a: GrantRecord, b: GrantRecord): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function freeze<T extends object>(record: T): T {
  return Object.freeze({ ...record });
}

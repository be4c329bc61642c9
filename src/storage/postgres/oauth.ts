import { SwitchboardError } from '../../core/errors.js';
import type {
  AccessTokenRecord,
  AuthorizationCodeRecord,
  GrantRecord,
  OAuthClientRecord,
  OAuthGrantType,
  OAuthStores,
  RefreshTokenRecord,
} from '../../core/storage/index.js';
import { GRANT_LIST_LIMIT } from '../../core/storage/oauth.js';
import { type Database, ms, msOrNull, prepared } from './database.js';

interface ClientRow {
  id: string;
  name: string;
  secret_hash: string | null;
  redirect_uris: string[];
  scopes: string[];
  grant_types: OAuthGrantType[];
  created_at: string;
  previous_secret_hash: string | null;
  previous_secret_until: string | null;
  self_registered: boolean;
  approved_at: string | null;
  disabled_at: string | null;
  mcp_tools: string[] | null;
}

const toClient = (r: ClientRow): OAuthClientRecord => ({
  id: r.id,
  name: r.name,
  secretHash: r.secret_hash,
  redirectUris: r.redirect_uris,
  scopes: r.scopes,
  grantTypes: r.grant_types,
  createdAt: ms(r.created_at),
  ...(r.previous_secret_hash && r.previous_secret_until !== null
    ? { previousSecret: { hash: r.previous_secret_hash, until: ms(r.previous_secret_until) } }
    : {}),
  ...(r.self_registered ? { selfRegistered: true } : {}),
  ...(r.approved_at === null ? {} : { approvedAt: ms(r.approved_at) }),
  ...(r.disabled_at === null ? {} : { disabledAt: ms(r.disabled_at) }),
  ...(r.mcp_tools === null ? {} : { mcpTools: r.mcp_tools }),
});

interface CodeRow {
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string | null;
  nonce: string | null;
  grant_id: string;
  created_at: string;
  expires_at: string;
  consumed_at: string | null;
  /** Null on codes stored before migration 24. */
  resources: string[] | null;
}

const toCode = (r: CodeRow): AuthorizationCodeRecord => ({
  codeHash: r.code_hash,
  clientId: r.client_id,
  userId: r.user_id,
  redirectUri: r.redirect_uri,
  scopes: r.scopes,
  codeChallenge: r.code_challenge,
  nonce: r.nonce,
  grantId: r.grant_id,
  ...(r.resources === null ? {} : { resources: r.resources }),
  createdAt: ms(r.created_at),
  expiresAt: ms(r.expires_at),
  consumedAt: msOrNull(r.consumed_at),
});

interface GrantRow {
  id: string;
  client_id: string;
  user_id: string | null;
  scopes: string[];
  resources: string[];
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

const toGrant = (r: GrantRow): GrantRecord => ({
  id: r.id,
  clientId: r.client_id,
  userId: r.user_id,
  scopes: r.scopes,
  // Empty means none named: left out, as the memory adapter keeps a record given without it.
  ...(r.resources.length ? { resources: r.resources } : {}),
  createdAt: ms(r.created_at),
  expiresAt: ms(r.expires_at),
  revokedAt: msOrNull(r.revoked_at),
});

interface RefreshRow {
  token_hash: string;
  grant_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

const toRefresh = (r: RefreshRow): RefreshTokenRecord => ({
  tokenHash: r.token_hash,
  grantId: r.grant_id,
  createdAt: ms(r.created_at),
  expiresAt: ms(r.expires_at),
  usedAt: msOrNull(r.used_at),
});

interface AccessRow {
  token_hash: string;
  grant_id: string;
  client_id: string;
  user_id: string | null;
  scopes: string[];
  audience: string[];
  created_at: string;
  expires_at: string;
}

const toAccess = (r: AccessRow): AccessTokenRecord => ({
  tokenHash: r.token_hash,
  grantId: r.grant_id,
  clientId: r.client_id,
  userId: r.user_id,
  scopes: r.scopes,
  ...(r.audience.length ? { audience: r.audience } : {}),
  createdAt: ms(r.created_at),
  expiresAt: ms(r.expires_at),
});

const CODE_COLUMNS =
  'code_hash, client_id, user_id, redirect_uri, scopes, code_challenge, nonce, grant_id, created_at, expires_at, consumed_at, resources';
const GRANT_COLUMNS = 'id, client_id, user_id, scopes, created_at, expires_at, revoked_at, resources';
const REFRESH_COLUMNS = 'token_hash, grant_id, created_at, expires_at, used_at';
const ACCESS_COLUMNS = 'token_hash, grant_id, client_id, user_id, scopes, created_at, expires_at, audience';

// A request signed with an access token reads both.
const GET_ACCESS_TOKEN = prepared(
  `SELECT ${ACCESS_COLUMNS} FROM switchboard_oauth_access_tokens WHERE token_hash = $1`,
);
const GET_GRANT = prepared(`SELECT ${GRANT_COLUMNS} FROM switchboard_oauth_grants WHERE id = $1`);

/**
 * OAuth records. Codes are consumed and refresh tokens used by one conditional
 * `UPDATE … WHERE consumed_at IS NULL`: concurrent callers queue on the row lock and only the first
 * finds it unused, so exactly one wins across every instance.
 */
export function postgresOAuthStores(db: Database): OAuthStores {
  return {
    clients: {
      async get(id) {
        const row = await db.row<ClientRow>('SELECT * FROM switchboard_oauth_clients WHERE id = $1', [id]);
        return row ? toClient(row) : null;
      },
      async list() {
        return (
          await db.rows<ClientRow>('SELECT * FROM switchboard_oauth_clients ORDER BY created_at, id')
        ).map(toClient);
      },
      async insert(c) {
        const inserted = await db.row(
          `INSERT INTO switchboard_oauth_clients
             (id, name, secret_hash, redirect_uris, scopes, grant_types, created_at, self_registered,
              approved_at, disabled_at, mcp_tools)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING RETURNING id`,
          [
            c.id,
            c.name,
            c.secretHash,
            c.redirectUris,
            c.scopes,
            c.grantTypes,
            c.createdAt,
            c.selfRegistered === true,
            c.approvedAt ?? null,
            c.disabledAt ?? null,
            c.mcpTools ?? null,
          ],
        );
        if (!inserted) {
          throw new SwitchboardError('conflict', `An OAuth client with id "${c.id}" already exists.`);
        }
      },
      async update(c) {
        const updated = await db.row(
          `UPDATE switchboard_oauth_clients
              SET name = $2, secret_hash = $3, redirect_uris = $4, scopes = $5, grant_types = $6,
                  previous_secret_hash = $7, previous_secret_until = $8, self_registered = $9,
                  approved_at = $10, disabled_at = $11, mcp_tools = $12
            WHERE id = $1 RETURNING id`,
          [
            c.id,
            c.name,
            c.secretHash,
            c.redirectUris,
            c.scopes,
            c.grantTypes,
            c.previousSecret?.hash ?? null,
            c.previousSecret?.until ?? null,
            c.selfRegistered === true,
            c.approvedAt ?? null,
            c.disabledAt ?? null,
            c.mcpTools ?? null,
          ],
        );
        return updated !== undefined;
      },
      async delete(id) {
        return (
          (await db.row('DELETE FROM switchboard_oauth_clients WHERE id = $1 RETURNING id', [id])) !==
          undefined
        );
      },
    },

    codes: {
      async insert(c) {
        await db.rows(
          `INSERT INTO switchboard_oauth_codes (${CODE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
           ON CONFLICT (code_hash) DO UPDATE SET client_id = $2, user_id = $3, redirect_uri = $4, scopes = $5,
             code_challenge = $6, nonce = $7, grant_id = $8, created_at = $9, expires_at = $10, consumed_at = $11,
             resources = $12`,
          [
            c.codeHash,
            c.clientId,
            c.userId,
            c.redirectUri,
            c.scopes,
            c.codeChallenge,
            c.nonce,
            c.grantId,
            c.createdAt,
            c.expiresAt,
            c.consumedAt,
            c.resources ?? null,
          ],
        );
      },
      async consume(codeHash, now) {
        const won = await db.row<CodeRow>(
          `UPDATE switchboard_oauth_codes SET consumed_at = $2 WHERE code_hash = $1 AND consumed_at IS NULL
           RETURNING ${CODE_COLUMNS}`,
          [codeHash, now],
        );
        if (won) return { state: 'consumed', code: toCode(won) };
        const seen = await db.row<CodeRow>(
          `SELECT ${CODE_COLUMNS} FROM switchboard_oauth_codes WHERE code_hash = $1`,
          [codeHash],
        );
        return seen ? { state: 'reused', code: toCode(seen) } : { state: 'missing' };
      },
    },

    grants: {
      async insert(g) {
        const inserted = await db.row(
          `INSERT INTO switchboard_oauth_grants (${GRANT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT DO NOTHING RETURNING id`,
          [g.id, g.clientId, g.userId, g.scopes, g.createdAt, g.expiresAt, g.revokedAt, g.resources ?? []],
        );
        if (!inserted) throw new SwitchboardError('conflict', `A grant with id "${g.id}" already exists.`);
      },
      async get(id) {
        const row = await db.row<GrantRow>(GET_GRANT, [id]);
        return row ? toGrant(row) : null;
      },
      async list({ userId, clientId, live }) {
        // Only the conditions given, so each filter meets its index (migration 10) in a plain plan.
        const values: unknown[] = [];
        const where: string[] = [];
        const is = (condition: (n: number) => string, value: unknown): void => {
          values.push(value);
          where.push(condition(values.length));
        };
        if (userId !== undefined) is((n) => `user_id = $${n}`, userId);
        if (clientId !== undefined) is((n) => `client_id = $${n}`, clientId);
        if (live) is((n) => `revoked_at IS NULL AND expires_at > $${n}`, live.now);
        values.push(GRANT_LIST_LIMIT);
        const rows = await db.rows<GrantRow>(
          `SELECT ${GRANT_COLUMNS} FROM switchboard_oauth_grants
           ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
           ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $${values.length}`,
          values,
        );
        return rows.map(toGrant);
      },
      async revoke(id, now) {
        const row = await db.row(
          'UPDATE switchboard_oauth_grants SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING id',
          [id, now],
        );
        return row !== undefined;
      },
      async revokeByClient(clientId, now) {
        const rows = await db.rows(
          `UPDATE switchboard_oauth_grants SET revoked_at = $2
           WHERE client_id = $1 AND revoked_at IS NULL RETURNING id`,
          [clientId, now],
        );
        return rows.length;
      },
      async widen(id, { scopes, resources, expiresAt }, now) {
        // One statement: a revocation that won first leaves the grant revoked, and nothing is set.
        const row = await db.row<GrantRow>(
          `UPDATE switchboard_oauth_grants SET scopes = $2, resources = $3, expires_at = $4
           WHERE id = $1 AND revoked_at IS NULL AND expires_at > $5 RETURNING ${GRANT_COLUMNS}`,
          [id, scopes, resources, expiresAt, now],
        );
        return row ? toGrant(row) : null;
      },
    },

    refreshTokens: {
      async insert(t) {
        await db.rows(
          `INSERT INTO switchboard_oauth_refresh_tokens (${REFRESH_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (token_hash) DO UPDATE SET grant_id = $2, created_at = $3, expires_at = $4, used_at = $5`,
          [t.tokenHash, t.grantId, t.createdAt, t.expiresAt, t.usedAt],
        );
      },
      async get(tokenHash) {
        const row = await db.row<RefreshRow>(
          `SELECT ${REFRESH_COLUMNS} FROM switchboard_oauth_refresh_tokens WHERE token_hash = $1`,
          [tokenHash],
        );
        return row ? toRefresh(row) : null;
      },
      async use(tokenHash, now) {
        const won = await db.row<RefreshRow>(
          `UPDATE switchboard_oauth_refresh_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL
           RETURNING ${REFRESH_COLUMNS}`,
          [tokenHash, now],
        );
        if (won) return { state: 'fresh', token: toRefresh(won) };
        const seen = await db.row<RefreshRow>(
          `SELECT ${REFRESH_COLUMNS} FROM switchboard_oauth_refresh_tokens WHERE token_hash = $1`,
          [tokenHash],
        );
        return seen ? { state: 'used', token: toRefresh(seen) } : { state: 'missing' };
      },
    },

    accessTokens: {
      async insert(t) {
        await db.rows(
          `INSERT INTO switchboard_oauth_access_tokens (${ACCESS_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (token_hash) DO UPDATE SET grant_id = $2, client_id = $3, user_id = $4, scopes = $5,
             created_at = $6, expires_at = $7, audience = $8`,
          [
            t.tokenHash,
            t.grantId,
            t.clientId,
            t.userId,
            t.scopes,
            t.createdAt,
            t.expiresAt,
            t.audience ?? [],
          ],
        );
      },
      async get(tokenHash) {
        const row = await db.row<AccessRow>(GET_ACCESS_TOKEN, [tokenHash]);
        return row ? toAccess(row) : null;
      },
      async delete(tokenHash) {
        const row = await db.row(
          'DELETE FROM switchboard_oauth_access_tokens WHERE token_hash = $1 RETURNING token_hash',
          [tokenHash],
        );
        return row !== undefined;
      },
    },

    async deleteExpired(before) {
      // One statement, so the count and the deletions agree even with concurrent sweepers.
      const row = await db.row<{ n: string }>(
        `WITH gone AS (DELETE FROM switchboard_oauth_grants WHERE expires_at < $1 RETURNING id),
              codes AS (DELETE FROM switchboard_oauth_codes
                        WHERE expires_at < $1 OR grant_id IN (SELECT id FROM gone) RETURNING 1),
              refresh AS (DELETE FROM switchboard_oauth_refresh_tokens
                          WHERE expires_at < $1 OR grant_id IN (SELECT id FROM gone) RETURNING 1),
              access AS (DELETE FROM switchboard_oauth_access_tokens
                         WHERE expires_at < $1 OR grant_id IN (SELECT id FROM gone) RETURNING 1)
         SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FROM codes)
              + (SELECT count(*) FROM refresh) + (SELECT count(*) FROM access) AS n`,
        [before],
      );
      return Number(row?.n ?? 0);
    },
  };
}

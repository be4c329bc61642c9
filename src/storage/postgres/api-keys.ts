import { SwitchboardError } from '../../core/errors.js';
import type { ApiKeyRecord, ApiKeyStore } from '../../core/storage/index.js';
import { type Database, ms, msOrNull, prepared } from './database.js';

interface ApiKeyRow {
  id: string;
  prefix: string;
  hash: string;
  name: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

const COLUMNS = 'id, prefix, hash, name, scopes, created_at, revoked_at, last_used_at';
// Every request signed with an API key runs these two.
const FIND_BY_HASH = prepared(`SELECT ${COLUMNS} FROM switchboard_api_keys WHERE hash = $1`);
const TOUCH = prepared('UPDATE switchboard_api_keys SET last_used_at = $2 WHERE id = $1');

function toKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    prefix: row.prefix,
    hash: row.hash,
    name: row.name,
    scopes: row.scopes,
    createdAt: ms(row.created_at),
    revokedAt: msOrNull(row.revoked_at),
    lastUsedAt: msOrNull(row.last_used_at),
  };
}

/** API keys; `findByHash` (every authenticated request) is a unique-index lookup. */
export function postgresApiKeyStore(db: Database): ApiKeyStore {
  return {
    async insert(key) {
      const inserted = await db.row(
        `INSERT INTO switchboard_api_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING RETURNING id`,
        [key.id, key.prefix, key.hash, key.name, key.scopes, key.createdAt, key.revokedAt, key.lastUsedAt],
      );
      if (!inserted)
        throw new SwitchboardError('conflict', 'An API key with this id or value already exists.');
    },
    async get(id) {
      const row = await db.row<ApiKeyRow>(`SELECT ${COLUMNS} FROM switchboard_api_keys WHERE id = $1`, [id]);
      return row ? toKey(row) : null;
    },
    async findByHash(hash) {
      const row = await db.row<ApiKeyRow>(FIND_BY_HASH, [hash]);
      return row ? toKey(row) : null;
    },
    async list() {
      const rows = await db.rows<ApiKeyRow>(
        `SELECT ${COLUMNS} FROM switchboard_api_keys ORDER BY created_at, id`,
      );
      return rows.map(toKey);
    },
    async revoke(id, at) {
      const row = await db.row(
        'UPDATE switchboard_api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id',
        [id, at],
      );
      return row !== undefined;
    },
    async touch(id, at) {
      await db.rows(TOUCH, [id, at]);
    },
    async setScopes(id, scopes) {
      const row = await db.row('UPDATE switchboard_api_keys SET scopes = $2 WHERE id = $1 RETURNING id', [
        id,
        scopes,
      ]);
      return row !== undefined;
    },
  };
}

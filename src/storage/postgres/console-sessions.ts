import { SwitchboardError } from '../../core/errors.js';
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../core/storage/index.js';
import type { Database } from './database.js';

interface SessionRow {
  id_hash: string;
  user_id: string | null;
  // bigint, which the driver returns as text.
  created_at: string;
  expires_at: string;
}

const toSession = (row: SessionRow): ConsoleSessionRecord => ({
  idHash: row.id_hash,
  userId: row.user_id,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
});

/** Console sessions; `get` (every console request) is a primary-key lookup. */
export function postgresConsoleSessionStore(db: Database): ConsoleSessionStore {
  const count = async (text: string, values: readonly unknown[]): Promise<number> =>
    (await db.rows(text, values)).length;
  return {
    async insert(session) {
      const inserted = await db.row(
        `INSERT INTO switchboard_console_sessions (id_hash, user_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id_hash`,
        [session.idHash, session.userId, session.createdAt, session.expiresAt],
      );
      if (!inserted) throw new SwitchboardError('conflict', 'A console session with this id already exists.');
    },
    async get(idHash) {
      const row = await db.row<SessionRow>(
        'SELECT id_hash, user_id, created_at, expires_at FROM switchboard_console_sessions WHERE id_hash = $1',
        [idHash],
      );
      return row ? toSession(row) : null;
    },
    async delete(idHash) {
      return (
        (await count('DELETE FROM switchboard_console_sessions WHERE id_hash = $1 RETURNING 1', [idHash])) > 0
      );
    },
    deleteByUser: (userId) =>
      count('DELETE FROM switchboard_console_sessions WHERE user_id = $1 RETURNING 1', [userId]),
    deleteExpired: (before) =>
      count('DELETE FROM switchboard_console_sessions WHERE expires_at < $1 RETURNING 1', [before]),
  };
}

import { SwitchboardError } from '../../core/errors.js';
import type { Client, Page } from '../../core/records.js';
import type { ClientFilter, ClientStore } from '../../core/storage/index.js';
import { type Database, iso, sqlState } from './database.js';

interface ClientRow {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  city: string | null;
  created_at: Date;
  updated_at: Date;
  version: number;
}

const COLUMNS = 'id, name, email, phone, city, created_at, updated_at, version';

/** A client's values in {@link COLUMNS} order: `$1`…`$8` of an insert or update. */
function valuesOf(client: Client): unknown[] {
  return [
    client.id,
    client.name,
    client.email,
    client.phone,
    client.city,
    client.createdAt,
    client.updatedAt,
    client.version,
  ];
}

function toClient(row: ClientRow): Client {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    city: row.city,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    version: row.version,
  };
}

// Same message and details as the memory adapter, so every interface renders the same conflict.
function emailTaken(email: string): SwitchboardError {
  return new SwitchboardError('conflict', `A client with the e-mail ${email} already exists.`, {
    details: [
      { field: 'email', code: 'already_exists', message: 'This e-mail is already used by another client.' },
    ],
  });
}

/** Statements whose unique violation can only be the e-mail: report it as the conflict it is. */
async function guardEmail<T>(email: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (sqlState(error) === '23505') throw emailTaken(email);
    throw error;
  }
}

export function postgresClientStore(db: Database): ClientStore {
  return {
    async get(id) {
      const row = await db.row<ClientRow>(`SELECT ${COLUMNS} FROM switchboard_clients WHERE id = $1`, [id]);
      return row ? toClient(row) : null;
    },

    async list(filter: ClientFilter, range): Promise<Page<Client>> {
      // One round trip: the count and the page share the filter; the LEFT JOIN keeps the count when
      // the page is empty.
      const where = `($1::text IS NULL OR city = $1)
        AND ($2::text IS NULL OR email = $2)
        AND ($3::text IS NULL OR strpos(lower(name), lower($3)) > 0)`;
      const rows = await db.rows<ClientRow & { total: string }>(
        `SELECT t.total, c.* FROM (SELECT count(*) AS total FROM switchboard_clients WHERE ${where}) t
         LEFT JOIN LATERAL (
           SELECT ${COLUMNS} FROM switchboard_clients WHERE ${where}
           ORDER BY created_at, id LIMIT $4 OFFSET $5
         ) c ON true`,
        [filter.city ?? null, filter.email ?? null, filter.nameContains ?? null, range.limit, range.offset],
      );
      return {
        items: rows.filter((r) => r.id !== null).map(toClient),
        total: Number(rows[0]?.total ?? 0),
      };
    },

    async insert(client) {
      // ON CONFLICT DO NOTHING instead of a unique violation: inside a transaction an error would
      // abort it, while the memory adapter leaves it usable after a refused insert.
      const inserted = await db.row(
        `INSERT INTO switchboard_clients (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING RETURNING id`,
        valuesOf(client),
      );
      if (inserted) return;
      const sameId = await db.row('SELECT 1 FROM switchboard_clients WHERE id = $1', [client.id]);
      if (sameId) throw new SwitchboardError('conflict', `Client ${client.id} already exists.`);
      throw emailTaken(client.email);
    },

    async update(client, expectedVersion) {
      // Version check first, then the e-mail, as the memory adapter does; a taken e-mail is found by
      // a read so the transaction stays usable. A concurrent insert of the same e-mail can still slip
      // between the read and the write: the unique index catches it.
      const result = await guardEmail(client.email, () =>
        db.row<{ current: number | null; taken: boolean; updated: string }>(
          `WITH current AS (SELECT version FROM switchboard_clients WHERE id = $1),
                taken AS (SELECT EXISTS (SELECT 1 FROM switchboard_clients WHERE email = $3 AND id <> $1) AS t),
                changed AS (
                  UPDATE switchboard_clients
                  SET name = $2, email = $3, phone = $4, city = $5, created_at = $6, updated_at = $7,
                      version = $8
                  WHERE id = $1 AND version = $9 AND NOT (SELECT t FROM taken)
                  RETURNING 1
                )
           SELECT (SELECT version FROM current) AS current, (SELECT t FROM taken) AS taken,
                  (SELECT count(*) FROM changed) AS updated`,
          [...valuesOf(client), expectedVersion],
        ),
      );
      if (!result || result.current !== expectedVersion) return false;
      if (result.taken) throw emailTaken(client.email);
      return Number(result.updated) === 1;
    },

    async delete(id, expectedVersion) {
      const deleted = await db.row(
        'DELETE FROM switchboard_clients WHERE id = $1 AND ($2::integer IS NULL OR version = $2) RETURNING id',
        [id, expectedVersion ?? null],
      );
      return deleted !== undefined;
    },
  };
}

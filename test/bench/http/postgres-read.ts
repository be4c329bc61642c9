/**
 * A client read from Switchboard's own table on PostgreSQL, as a peer would write it by hand: one
 * prepared SELECT per read through a `pg` pool of the size Switchboard's storage uses (10), the row
 * made into the record Switchboard answers (its fields, then id, times and version).
 */
import pg from 'pg';
import type { Client } from '../../../src/index.js';

const READ = {
  name: 'bench_client_by_id',
  text: `SELECT id, version, data,
           to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
           to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at
         FROM switchboard_resources WHERE resource = 'client' AND id = $1`,
};

interface Row {
  id: string;
  version: number;
  data: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export function postgresClients(url: string): { get(id: string): Promise<Client | undefined> } {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return {
    async get(id) {
      const { rows } = await pool.query<Row>({ ...READ, values: [id] });
      const row = rows[0];
      if (!row) return undefined;
      return {
        ...row.data,
        id: row.id,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        version: row.version,
      } as Client;
    },
  };
}

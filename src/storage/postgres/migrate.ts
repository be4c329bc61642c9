import type { Pool, PoolClient } from 'pg';
import { database, translate } from './database.js';
import { MIGRATIONS, type Migration } from './migrations.js';

/** What `migrate()` did. */
export interface MigrationResult {
  /** The versions applied by this call, oldest first; empty when the schema was already current. */
  readonly applied: readonly number[];
  /** The schema version now in place. */
  readonly version: number;
}

// First key of the two-key advisory lock: "SWBD". The second key is the schema, so databases that
// hold several Switchboard schemas (one per tenant or test) migrate them independently.
const LOCK_CLASS = 0x53574244;

/**
 * Brings the schema to the current version in one transaction. Safe to call from every instance at
 * start-up: a transaction-scoped advisory lock lets one migrate while the others wait, then find
 * nothing left to do. A failed step rolls back every step of the call.
 */
export async function runMigrations(
  pool: Pool,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationResult> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translate(error);
  }
  const db = database(client);
  try {
    await db.rows('BEGIN');
    await db.rows('SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))', [LOCK_CLASS]);
    await db.rows(`
      CREATE TABLE IF NOT EXISTS switchboard_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const done = new Set(
      (await db.rows<{ version: number }>('SELECT version FROM switchboard_migrations')).map(
        (r) => r.version,
      ),
    );
    const applied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      await db.rows(migration.sql);
      await db.rows('INSERT INTO switchboard_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
      done.add(migration.version);
    }
    await db.rows('COMMIT');
    return { applied, version: Math.max(0, ...done) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

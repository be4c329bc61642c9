/**
 * Test databases on the server from `test/setup/postgres.ts`: each test file gets a database of its
 * own, so files run in parallel without seeing each other's rows or NOTIFY channels.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js';

export interface TestDatabase {
  readonly url: string;
  /** A pool on the test database; ended by `drop`. */
  readonly pool: pg.Pool;
  /** Empties every Switchboard table (keeps the schema and its migrations). */
  truncate(): Promise<void>;
  /**
   * A migrated PostgreSQL storage on this database with a pool of its own, as one instance of a
   * deployment has; closed by `drop`.
   */
  storage(): Promise<PostgresStorage>;
  /** Closes the storages made by `storage`, then drops the database. */
  drop(): Promise<void>;
}

async function waitForServer(adminUrl: string): Promise<void> {
  const stateDir = inject('postgresStateDir');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const errorFile = join(stateDir, 'error');
    if (existsSync(errorFile)) throw new Error(readFileSync(errorFile, 'utf8'));
    const client = new pg.Client({ connectionString: adminUrl });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('postgresUrl');
  await waitForServer(adminUrl);
  const name = `switchboard_test_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 20 });
  pool.on('error', () => {});
  const storages: PostgresStorage[] = [];
  return {
    url: url.toString(),
    pool,
    async truncate() {
      const { rows } = await pool.query<{ tablename: string }>(
        `SELECT tablename FROM pg_tables
         WHERE schemaname = current_schema() AND tablename LIKE 'switchboard\\_%' AND tablename <> 'switchboard_migrations'`,
      );
      if (rows.length)
        await pool.query(`TRUNCATE ${rows.map((r) => r.tablename).join(', ')} RESTART IDENTITY`);
    },
    async storage() {
      const storage = createPostgresStorage({ connectionString: url.toString() });
      storages.push(storage);
      await storage.migrate();
      return storage;
    },
    async drop() {
      await Promise.all(storages.map((storage) => storage.close()));
      await pool.end();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * The storages a file's tests run on alike: memory, and PostgreSQL on a database of the file's own,
 * made before its tests and dropped after them. Call it at the top of the file:
 * `describe.each(bothStorages())('… on %s', (_, makeStorage) => …)`.
 */
export function bothStorages(): [string, () => Promise<Storage>][] {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());
  return [
    ['memory', async () => createMemoryStorage()],
    ['PostgreSQL', async () => db!.storage()],
  ];
}

/**
 * A database of its own for one run of the runtime smoke suite on PostgreSQL storage, on the test
 * server (test/setup/postgres.ts). The smoke checks expect an empty switchboard, so runs must not see
 * each other's records.
 */
import { vi } from 'vitest';
import { createTestDatabase } from '../setup/database.js';

/**
 * Runs `work` with SMOKE_DATABASE_URL naming a fresh database, which the runtime's script inherits from
 * this process's environment; drops the database afterwards.
 */
export async function withSmokeDatabase<T>(work: () => Promise<T>): Promise<T> {
  const db = await createTestDatabase();
  vi.stubEnv('SMOKE_DATABASE_URL', db.url);
  try {
    return await work();
  } finally {
    vi.unstubAllEnvs();
    await db.drop();
  }
}

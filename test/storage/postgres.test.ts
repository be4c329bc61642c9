import { afterAll, beforeAll } from 'vitest';
import { createPostgresStorage } from '../../src/storage/postgres/index.js';
import { describeStorageContract } from '../../src/storage/testing/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await createPostgresStorage({ pool: db.pool }).migrate();
});
afterAll(() => db?.drop());

describeStorageContract('postgres', async () => {
  await db.truncate();
  return createPostgresStorage({ pool: db.pool });
});

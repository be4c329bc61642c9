/**
 * The webhook signing keys' private halves at rest: with the storage's `encryptionKey` they are sealed
 * (AES-256-GCM) before they reach the database, and only the adapter holding the key opens them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookSigningKeyRecord } from '../../src/core/storage/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createPostgresStorage } from '../../src/storage/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const encryptionKey = 'an-encryption-key-of-the-host-0123456789';
const key = (id: string): WebhookSigningKeyRecord => ({
  id,
  algorithm: 'Ed25519',
  publicKey: 'dNUqgPwmBUdNt739WVbFjL1wpT5dexfJZvoDTRBLCVM',
  privateKey: 'fOhsODxbelO8RMKxdXHVaZMke8QVbH2bm7GrGXCGtCA',
  createdAt: 1_000,
  expiresAt: null,
});
const first = { expectedActiveId: null, retireAt: 1_000, now: 1_000 };

describe('signing keys at rest', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await createPostgresStorage({ pool: db.pool }).migrate();
  });
  afterAll(() => db?.drop());
  beforeEach(() => db.truncate());

  it('PostgreSQL stores the private key sealed and hands it back opened', async () => {
    const storage = createPostgresStorage({ pool: db.pool, encryptionKey });
    await storage.webhooks.signingKeys.activate(key('whk_1'), first);
    const { rows } = await db.pool.query(
      'SELECT private_key, public_key FROM switchboard_webhook_signing_keys',
    );
    expect(rows[0].private_key).toMatch(/^sealed\.v1\./);
    expect(rows[0].private_key).not.toContain(key('whk_1').privateKey);
    expect(rows[0].public_key).toBe(key('whk_1').publicKey);
    expect(await storage.webhooks.signingKeys.list(2_000)).toEqual([key('whk_1')]);
  });

  it('an instance without the key, or with another, refuses to read a sealed key and says why', async () => {
    await createPostgresStorage({ pool: db.pool, encryptionKey }).webhooks.signingKeys.activate(
      key('whk_1'),
      first,
    );
    await expect(createPostgresStorage({ pool: db.pool }).webhooks.signingKeys.list(2_000)).rejects.toThrow(
      /stored encrypted; give the storage adapter its encryptionKey/,
    );
    const other = createPostgresStorage({ pool: db.pool, encryptionKey: `${encryptionKey}-other` });
    await expect(other.webhooks.signingKeys.list(2_000)).rejects.toThrow(/cannot be opened/);
  });

  it('a sealed key moved to another row does not open: it is bound to its id', async () => {
    const storage = createPostgresStorage({ pool: db.pool, encryptionKey });
    await storage.webhooks.signingKeys.activate(key('whk_1'), first);
    await db.pool.query(`UPDATE switchboard_webhook_signing_keys SET id = 'whk_2'`);
    await expect(storage.webhooks.signingKeys.list(2_000)).rejects.toThrow(/cannot be opened/);
  });

  it('a key stored in clear before the encryption key was set stays readable', async () => {
    await createPostgresStorage({ pool: db.pool }).webhooks.signingKeys.activate(key('whk_1'), first);
    const storage = createPostgresStorage({ pool: db.pool, encryptionKey });
    expect(await storage.webhooks.signingKeys.list(2_000)).toEqual([key('whk_1')]);
  });

  it('the memory adapter seals alike and hands the key back opened', async () => {
    const storage = createMemoryStorage({ encryptionKey });
    await storage.webhooks.signingKeys.activate(key('whk_1'), first);
    expect(await storage.webhooks.signingKeys.list(2_000)).toEqual([key('whk_1')]);
  });

  it('both adapters refuse an encryption key too short to trust', () => {
    expect(() => createMemoryStorage({ encryptionKey: 'short' })).toThrow(/at least 32 characters/);
    expect(() => createPostgresStorage({ pool: db.pool, encryptionKey: 'short' })).toThrow(
      /at least 32 characters/,
    );
  });
});

/**
 * An endpoint's custom header values at rest: with the storage's `encryptionKey` they are sealed
 * (AES-256-GCM, bound to the endpoint and the header's name) before they reach the database, and only
 * an adapter holding the key opens them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WebhookEndpointRecord } from '../../src/core/storage/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createPostgresStorage } from '../../src/storage/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const encryptionKey = 'an-encryption-key-of-the-host-0123456789';
const endpoint = (id: string): WebhookEndpointRecord => ({
  id,
  url: 'https://hooks.example.com/receive',
  description: '',
  eventTypes: ['order.*'],
  secrets: [{ secret: 'whsec_c2VjcmV0', createdAt: 1_000, expiresAt: null }],
  scheme: 'switchboard',
  apiVersion: 1,
  enabled: true,
  disabledReason: null,
  failingSince: null,
  headers: { authorization: 'Bearer gateway-t0ken', 'x-tenant': 'acme' },
  createdAt: 1_000,
  updatedAt: 1_000,
  version: 1,
});

describe('custom header values at rest', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await createPostgresStorage({ pool: db.pool }).migrate();
  });
  afterAll(() => db?.drop());
  beforeEach(() => db.truncate());

  it('PostgreSQL stores them sealed and hands them back opened, on every read', async () => {
    const storage = createPostgresStorage({ pool: db.pool, encryptionKey });
    await storage.webhooks.endpoints.insert(endpoint('whe_1'));
    const { rows } = await db.pool.query(
      'SELECT headers::text AS headers FROM switchboard_webhook_endpoints',
    );
    expect(rows[0].headers).not.toContain('gateway-t0ken');
    expect(rows[0].headers).not.toContain('acme');
    expect(rows[0].headers).toContain('sealed.v1.');
    const stored = await storage.webhooks.endpoints.get('whe_1');
    expect(stored).toMatchObject({ headers: endpoint('whe_1').headers });
    expect((await storage.webhooks.endpoints.listEnabled())[0]!.headers).toEqual(endpoint('whe_1').headers);
    expect((await storage.webhooks.endpoints.list({ offset: 0, limit: 5 })).items[0]!.headers).toEqual(
      endpoint('whe_1').headers,
    );
    const changed = { ...stored!, headers: { 'x-tenant': 'globex' }, version: 2 };
    expect(await storage.webhooks.endpoints.update(changed, 1)).toBe(true);
    expect(await storage.webhooks.endpoints.recordOutcome('whe_1', { ok: false, at: 2_000 })).toMatchObject({
      headers: { 'x-tenant': 'globex' },
    });
  });

  it('an instance without the key, or with another, refuses to read them and says why', async () => {
    await createPostgresStorage({ pool: db.pool, encryptionKey }).webhooks.endpoints.insert(
      endpoint('whe_1'),
    );
    await expect(createPostgresStorage({ pool: db.pool }).webhooks.endpoints.get('whe_1')).rejects.toThrow(
      /stored encrypted; give the storage adapter its encryptionKey/,
    );
    const other = createPostgresStorage({ pool: db.pool, encryptionKey: `${encryptionKey}-other` });
    await expect(other.webhooks.endpoints.listEnabled()).rejects.toThrow(/cannot be opened/);
  });

  it('a sealed value moved to another endpoint does not open: it is bound to its endpoint and name', async () => {
    const storage = createPostgresStorage({ pool: db.pool, encryptionKey });
    await storage.webhooks.endpoints.insert(endpoint('whe_1'));
    await db.pool.query(`UPDATE switchboard_webhook_endpoints SET id = 'whe_2'`);
    await expect(storage.webhooks.endpoints.get('whe_2')).rejects.toThrow(/cannot be opened/);
  });

  it('values stored in clear before the key was set stay readable', async () => {
    await createPostgresStorage({ pool: db.pool }).webhooks.endpoints.insert(endpoint('whe_1'));
    const storage = createPostgresStorage({ pool: db.pool, encryptionKey });
    expect(await storage.webhooks.endpoints.get('whe_1')).toMatchObject({
      headers: endpoint('whe_1').headers,
    });
  });

  it('the memory adapter seals alike and hands them back opened', async () => {
    const storage = createMemoryStorage({ encryptionKey });
    await storage.webhooks.endpoints.insert(endpoint('whe_1'));
    expect(await storage.webhooks.endpoints.get('whe_1')).toMatchObject({
      headers: endpoint('whe_1').headers,
    });
  });
});

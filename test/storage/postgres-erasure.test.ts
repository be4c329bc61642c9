/**
 * Erasure against a fan-out running at the same moment, on PostgreSQL: whichever commits first, no
 * delivery holding the erased client's data is left. The contract suite says what happens one after
 * the other; this is the race between two connections, which only a database has.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Erasure, erasedPayload } from '../../src/core/storage/erasure.js';
import type { Stores } from '../../src/core/storage/index.js';
import { createPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js';
import { anEvent } from '../../src/storage/testing/fixtures.js';
import { aDelivery, anEndpoint } from '../../src/storage/testing/webhook-fixtures.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

const ERASURE: Erasure = { owner: 'cli_race', keep: ['id'], at: Date.UTC(2026, 0, 2) };
const personal = { id: 'cli_race', email: 'race@example.com' };

let db: TestDatabase;
let storage: PostgresStorage;
beforeAll(async () => {
  db = await createTestDatabase();
  storage = createPostgresStorage({ pool: db.pool });
  await storage.migrate();
});
afterAll(() => db?.drop());
beforeEach(() => db.truncate());

const erase = (tx: Stores) => tx.outbox.erase(ERASURE).then(() => tx.webhooks.deliveries.erase(ERASURE));
/** Resolves after `ms`, or with the value if `promise` settles first: "is it still waiting?". */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'waiting'> =>
  Promise.race([promise, new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), ms))]);

/** An event of the client in the outbox, an endpoint, and the delivery a fan-out makes of it. */
async function setUp() {
  const event = anEvent({ owner: 'cli_race', data: personal });
  await storage.outbox.append(event);
  const endpoint = anEndpoint();
  await storage.webhooks.endpoints.insert(endpoint);
  const payload = JSON.stringify({ event: event.type, event_id: event.id, data: personal });
  return aDelivery(endpoint.id, { eventId: event.id, owner: 'cli_race', payload });
}

describe('erasure racing a fan-out (PostgreSQL)', () => {
  it('a fan-out that commits first is waited for, and its deliveries are erased', async () => {
    const delivery = await setUp();
    let commit!: () => void;
    const held = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let inserted!: () => void;
    const insertedOnce = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const fanOut = storage.transaction(async (tx) => {
      expect(await tx.webhooks.deliveries.createManyIfAbsent([delivery])).toBe(1);
      inserted();
      await held; // the fan-out's transaction stays open, its event row share-locked
    });
    await insertedOnce;
    const erasure = storage.transaction(erase);
    expect(await within(erasure, 300)).toBe('waiting');
    commit();
    await fanOut;
    expect(await erasure).toBe(1);
    const stored = await storage.webhooks.deliveries.get(delivery.id);
    expect(stored).toMatchObject({
      erasedAt: ERASURE.at,
      payload: erasedPayload(delivery.payload, ERASURE.keep),
    });
  });

  it('a fan-out that comes while the erasure is open waits, then leaves out what it read before', async () => {
    const delivery = await setUp();
    let commit!: () => void;
    const held = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let erased!: () => void;
    const erasedOnce = new Promise<void>((resolve) => {
      erased = resolve;
    });
    const erasure = storage.transaction(async (tx) => {
      await erase(tx);
      erased();
      await held;
    });
    await erasedOnce;
    const fanOut = storage.webhooks.deliveries.createManyIfAbsent([delivery]);
    expect(await within(fanOut, 300)).toBe('waiting');
    commit();
    await erasure;
    expect(await fanOut).toBe(0);
    expect(await storage.webhooks.deliveries.get(delivery.id)).toBeNull();
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM switchboard_webhook_deliveries t WHERE t::text LIKE '%race@example.com%'`,
    );
    expect(rows[0].n).toBe(0);
  });
});

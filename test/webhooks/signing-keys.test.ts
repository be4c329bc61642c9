/**
 * The deployment's Ed25519 key ring across instances: one key made however many instances ask at once,
 * another instance following a rotation within its refresh interval, keys leaving at the overlap's end.
 * Instances are rings over their own storage objects (PostgreSQL: each with its own pool on one database).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import { createRuntime } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createWebhookKeyRing, type WebhookKeyRing } from '../../src/webhooks/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { manualClock } from '../support/clock.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

/** Storages that share their data, as the instances of one deployment do. */
const deployments: [string, () => Promise<() => Promise<Storage>>][] = [
  [
    'memory',
    async () => {
      const shared = createMemoryStorage();
      return async () => shared;
    },
  ],
  [
    'PostgreSQL',
    async () => {
      await db.truncate();
      return () => db.storage();
    },
  ],
];

describe.each(deployments)('the webhook key ring on %s', (_, deployment) => {
  const clock = manualClock();
  const ringOn = (storage: Storage, refreshMs = 60_000): WebhookKeyRing =>
    createWebhookKeyRing(createRuntime({ storage, clock }), { refreshMs });

  it('instances asking at once for the first time end up with one key', async () => {
    const instance = await deployment();
    const rings = await Promise.all([1, 2, 3, 4].map(async () => ringOn(await instance())));
    const sets = await Promise.all(rings.map((ring) => ring.jwks()));
    const kids = sets.map((set) => set.keys.map((k) => k.kid));
    expect(kids.every((k) => k.length === 1 && k[0] === kids[0]![0])).toBe(true);
    // And the private key each signs with is the same one.
    const signers = await Promise.all(rings.map((ring) => ring.signingKeys()));
    expect(new Set(signers.map(([key]) => key!.d)).size).toBe(1);
  });

  it('another instance follows a rotation once its refresh interval has passed', async () => {
    const instance = await deployment();
    const [a, b] = [ringOn(await instance()), ringOn(await instance())];
    const [before] = (await b.jwks()).keys;
    const rotated = await a.rotate({ overlapSeconds: 3600 });
    expect(rotated.map((k) => k.active)).toEqual([true, false]);
    // The rotating instance signs with both at once; the other still with what it read.
    expect((await a.signingKeys()).map((k) => k.x)).toEqual([rotated[0]!.publicKey, before!.x]);
    expect((await b.signingKeys()).map((k) => k.x)).toEqual([before!.x]);
    clock.advance(60_000);
    expect((await b.signingKeys()).map((k) => k.x)).toEqual([rotated[0]!.publicKey, before!.x]);
    // At the overlap's end the old key is gone from both, without another read.
    clock.advance(3_600_000);
    expect((await a.jwks()).keys.map((k) => k.x)).toEqual([rotated[0]!.publicKey]);
    expect((await b.signingKeys()).map((k) => k.x)).toEqual([rotated[0]!.publicKey]);
  });

  it('an overlap of 0 drops the previous keys at once, for a key that leaked', async () => {
    const ring = ringOn(await (await deployment())());
    const [leaked] = (await ring.jwks()).keys;
    const after = await ring.rotate({ overlapSeconds: 0 });
    expect(after).toHaveLength(1);
    expect(after[0]!.kid).not.toBe(leaked!.kid);
    expect((await ring.jwks()).keys.map((k) => k.kid)).toEqual([after[0]!.kid]);
  });

  it('refuses an overlap outside 0 to 7 days with the same error as a secret rotation', async () => {
    const ring = ringOn(await (await deployment())());
    await expect(ring.rotate({ overlapSeconds: 8 * 86_400 })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'overlapSeconds' })],
    });
    await expect(ring.rotate({ other: 1 })).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

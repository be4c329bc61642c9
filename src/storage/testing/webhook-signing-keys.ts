import { expect, it } from 'vitest';
import type { Storage, WebhookSigningKeyRecord } from '../../core/storage/index.js';
import { ms } from './fixtures.js';

let counter = 0;
/** A key pair as the store keeps it (the bytes need not be a real key: the store does not sign). */
function aKey(createdAt: number, overrides: Partial<WebhookSigningKeyRecord> = {}): WebhookSigningKeyRecord {
  const n = ++counter;
  return {
    id: `whk_contract_${n}`,
    algorithm: 'Ed25519',
    publicKey: `public-${n}-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
    privateKey: `private-${n}-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB`,
    createdAt,
    expiresAt: null,
    ...overrides,
  };
}

export function webhookSigningKeyContract(storage: () => Storage): void {
  it('activates the first key when none is active and hands its private key back as given', async () => {
    const keys = storage().webhooks.signingKeys;
    expect(await keys.list(ms(1))).toEqual([]);
    const first = aKey(ms(1));
    const activation = { expectedActiveId: null, retireAt: ms(1), now: ms(1) };
    expect(await keys.activate(first, activation)).toBe(true);
    expect(await keys.list(ms(2))).toEqual([first]);
  });

  it('rotates with an overlap: the new key active first, the old one listed until it expires', async () => {
    const keys = storage().webhooks.signingKeys;
    const old = aKey(ms(1));
    const next = aKey(ms(2));
    await keys.activate(old, { expectedActiveId: null, retireAt: ms(1), now: ms(1) });
    expect(await keys.activate(next, { expectedActiveId: old.id, retireAt: ms(10), now: ms(2) })).toBe(true);
    expect(await keys.list(ms(3))).toEqual([next, { ...old, expiresAt: ms(10) }]);
    expect(await keys.list(ms(10))).toEqual([next]);
  });

  it('keeps one active key: an activation that did not see the current one is refused', async () => {
    const keys = storage().webhooks.signingKeys;
    const first = aKey(ms(1));
    await keys.activate(first, { expectedActiveId: null, retireAt: ms(1), now: ms(1) });
    const late = aKey(ms(2));
    expect(await keys.activate(late, { expectedActiveId: null, retireAt: ms(2), now: ms(2) })).toBe(false);
    expect(await keys.activate(late, { expectedActiveId: 'whk_other', retireAt: ms(2), now: ms(2) })).toBe(
      false,
    );
    expect(await keys.list(ms(3))).toEqual([first]);
  });

  it('two activations racing from the same state: exactly one wins', async () => {
    const keys = storage().webhooks.signingKeys;
    const results = await Promise.all(
      [aKey(ms(1)), aKey(ms(1))].map((key) =>
        keys.activate(key, { expectedActiveId: null, retireAt: ms(1), now: ms(1) }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await keys.list(ms(2))).filter((k) => k.expiresAt === null)).toHaveLength(1);
  });

  it('never lengthens an overlap already shorter, and deletes keys expired by the rotation', async () => {
    const keys = storage().webhooks.signingKeys;
    const [a, b, c] = [aKey(ms(1)), aKey(ms(2)), aKey(ms(3))];
    await keys.activate(a, { expectedActiveId: null, retireAt: ms(1), now: ms(1) });
    await keys.activate(b, { expectedActiveId: a.id, retireAt: ms(5), now: ms(2) });
    await keys.activate(c, { expectedActiveId: b.id, retireAt: ms(20), now: ms(3) });
    expect(await keys.list(ms(4))).toEqual([c, { ...b, expiresAt: ms(20) }, { ...a, expiresAt: ms(5) }]);
    const d = aKey(ms(6));
    await keys.activate(d, { expectedActiveId: c.id, retireAt: ms(8), now: ms(6) });
    // a expired at 5 and is gone; b's 20 is cut to the new overlap's end.
    expect(await keys.list(ms(6))).toEqual([d, { ...c, expiresAt: ms(8) }, { ...b, expiresAt: ms(8) }]);
  });

  it('refuses a key id that exists, and a key to activate that carries an expiry', async () => {
    const keys = storage().webhooks.signingKeys;
    const first = aKey(ms(1));
    await keys.activate(first, { expectedActiveId: null, retireAt: ms(1), now: ms(1) });
    await expect(
      keys.activate({ ...first }, { expectedActiveId: first.id, retireAt: ms(2), now: ms(2) }),
    ).rejects.toMatchObject({ code: 'conflict' });
    await expect(
      keys.activate(aKey(ms(2), { expiresAt: ms(9) }), {
        expectedActiveId: first.id,
        retireAt: ms(2),
        now: ms(2),
      }),
    ).rejects.toThrow(TypeError);
    // Neither changed anything: the refused rotation did not retire the active key.
    expect(await keys.list(ms(3))).toEqual([first]);
  });

  it('takes an activation back with the transaction that made it', async () => {
    const s = storage();
    const first = aKey(ms(1));
    await expect(
      s.transaction(async (tx) => {
        await tx.webhooks.signingKeys.activate(first, {
          expectedActiveId: null,
          retireAt: ms(1),
          now: ms(1),
        });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await s.webhooks.signingKeys.list(ms(2))).toEqual([]);
  });
}

import { expect, it } from 'vitest';
import type { Storage } from '../../core/storage/index.js';

const NOW = Date.UTC(2026, 0, 1);
const lock = { now: NOW, lockMs: 30_000 };

export function idempotencyContract(storage: () => Storage): void {
  it('lets exactly one of 50 concurrent callers claim a key', async () => {
    const s = storage();
    const claims = await Promise.all(Array.from({ length: 50 }, () => s.idempotency.claim('evt_same', lock)));
    expect(claims.filter((c) => c.state === 'claimed')).toHaveLength(1);
    expect(claims.filter((c) => c.state === 'in_progress')).toHaveLength(49);
  });

  it('returns the stored result once completed, until it expires', async () => {
    const s = storage();
    await s.idempotency.claim('k1', lock);
    await s.idempotency.complete('k1', '{"id":"cli_1"}', NOW + 60_000);
    expect(await s.idempotency.claim('k1', { ...lock, now: NOW + 59_999 })).toEqual({
      state: 'completed',
      result: '{"id":"cli_1"}',
    });
    expect(await s.idempotency.claim('k1', { ...lock, now: NOW + 60_000 })).toEqual({ state: 'claimed' });
  });

  it('lets a released key be claimed again, so a failed attempt can be retried', async () => {
    const s = storage();
    await s.idempotency.claim('k2', lock);
    await s.idempotency.release('k2');
    expect(await s.idempotency.claim('k2', lock)).toEqual({ state: 'claimed' });
  });

  it('treats an unfinished claim as abandoned once its lock lapses', async () => {
    const s = storage();
    await s.idempotency.claim('k3', lock);
    expect(await s.idempotency.claim('k3', { ...lock, now: NOW + 29_999 })).toEqual({ state: 'in_progress' });
    expect(await s.idempotency.claim('k3', { ...lock, now: NOW + 30_000 })).toEqual({ state: 'claimed' });
  });

  it('does not let release undo a completed key', async () => {
    const s = storage();
    await s.idempotency.claim('k4', lock);
    await s.idempotency.complete('k4', null, NOW + 60_000);
    await s.idempotency.release('k4');
    expect(await s.idempotency.claim('k4', lock)).toEqual({ state: 'completed', result: null });
  });

  it('completes a key in a transaction with the records written there, or not at all', async () => {
    const s = storage();
    await s.idempotency.claim('k5', lock);
    await s.idempotency.claim('k6', lock);
    await s.transaction(async (tx) => {
      await tx.idempotency.complete('k5', '{"id":"cli_5"}', NOW + 60_000);
    });
    await expect(
      s.transaction(async (tx) => {
        await tx.idempotency.complete('k6', '{"id":"cli_6"}', NOW + 60_000);
        throw new Error('the record could not be written');
      }),
    ).rejects.toThrow('could not be written');
    expect(await s.idempotency.claim('k5', lock)).toEqual({ state: 'completed', result: '{"id":"cli_5"}' });
    expect(await s.idempotency.claim('k6', lock)).toEqual({ state: 'in_progress' });
  });
}

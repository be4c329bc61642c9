import { expect, it } from 'vitest';
import type { Storage } from '../../core/storage/index.js';

const NOW = Date.UTC(2026, 0, 1);
let counter = 0;
const fresh = () => `contract:${++counter}`;

export function rateLimitContract(storage: () => Storage): void {
  it('lets a whole window through at once, then refuses, saying when to retry', async () => {
    const s = storage();
    const key = fresh();
    const rule = { limit: 3, windowMs: 3000 };
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await s.rateLimits.take(key, rule, 1, NOW));
    expect(answers.map((a) => a.allowed)).toEqual([true, true, true, false]);
    expect(answers.map((a) => a.remaining)).toEqual([2, 1, 0, 0]);
    expect(answers[2]!.resetMs).toBe(3000);
    expect(answers[3]!.retryAfterMs).toBe(1000);
    // A refused take changes nothing; after one interval one unit is back.
    expect((await s.rateLimits.take(key, rule, 1, NOW + 999)).allowed).toBe(false);
    expect(await s.rateLimits.take(key, rule, 1, NOW + 1000)).toMatchObject({ allowed: true, remaining: 0 });
    // Another key has its own bucket.
    expect((await s.rateLimits.take(fresh(), rule, 1, NOW)).remaining).toBe(2);
  });

  it('takes a cost of several units, and never one larger than the whole window', async () => {
    const s = storage();
    const key = fresh();
    const rule = { limit: 10, windowMs: 10_000 };
    expect(await s.rateLimits.take(key, rule, 7, NOW)).toMatchObject({ allowed: true, remaining: 3 });
    expect(await s.rateLimits.take(key, rule, 4, NOW)).toMatchObject({ allowed: false, retryAfterMs: 1000 });
    expect((await s.rateLimits.take(fresh(), rule, 11, NOW)).allowed).toBe(false);
  });

  it('gives units back with a negative cost, never beyond a full bucket', async () => {
    const s = storage();
    const key = fresh();
    const rule = { limit: 3, windowMs: 3000 };
    for (let i = 0; i < 3; i++) await s.rateLimits.take(key, rule, 1, NOW);
    expect(await s.rateLimits.take(key, rule, -1, NOW)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await s.rateLimits.take(key, rule, 1, NOW)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await s.rateLimits.take(key, rule, 1, NOW)).allowed).toBe(false);
    // Giving back more than was taken fills the bucket, no more: still three at once, then a refusal.
    const full = fresh();
    await s.rateLimits.take(full, rule, 1, NOW);
    expect(await s.rateLimits.take(full, rule, -5, NOW)).toMatchObject({
      allowed: true,
      remaining: 3,
      resetMs: 0,
    });
    expect(await s.rateLimits.take(fresh(), rule, -1, NOW)).toMatchObject({ allowed: true, remaining: 3 });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await s.rateLimits.take(full, rule, 1, NOW)).allowed);
    expect(answers).toEqual([true, true, true, false]);
  });

  it('gives exactly the budget to concurrent takes', async () => {
    const s = storage();
    const key = fresh();
    const rule = { limit: 5, windowMs: 60_000 };
    const answers = await Promise.all(Array.from({ length: 12 }, () => s.rateLimits.take(key, rule, 1, NOW)));
    expect(answers.filter((a) => a.allowed)).toHaveLength(5);
  });
}

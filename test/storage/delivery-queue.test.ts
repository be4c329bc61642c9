/** The memory adapter's delivery queue, through the storage contract: what a claim may and may not take. */
import { describe, expect, it } from 'vitest';
import type { WebhookDeliveryRecord } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
let serial = 0;

function delivery(endpointId: string, dueAt: number, status: WebhookDeliveryRecord['status'] = 'pending') {
  serial++;
  return {
    id: `whd_${String(serial).padStart(6, '0')}`,
    endpointId,
    eventId: `evt_${serial}`,
    eventType: 'client.created',
    payload: '{}',
    status,
    attempts: 0,
    nextAttemptAt: status === 'pending' ? dueAt : null,
    leasedBy: null,
    leaseUntil: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: T0,
    updatedAt: T0,
  } satisfies WebhookDeliveryRecord;
}

const claim = (storage: ReturnType<typeof createMemoryStorage>, now: number, workerId = 'w1', limit = 10) =>
  storage.webhooks.deliveries.claimDue({ now, limit, leaseMs: 30_000, workerId, maxPerEndpoint: 2 });

describe('memory delivery queue', () => {
  it('claims oldest due first, within each endpoint’s lease limit across workers, never twice', async () => {
    const storage = createMemoryStorage();
    const { deliveries } = storage.webhooks;
    const a = [delivery('ep_a', T0 + 3), delivery('ep_a', T0 + 1), delivery('ep_a', T0 + 2)];
    const b = [delivery('ep_b', T0 + 5), delivery('ep_b', T0 + 10_000)];
    for (const d of [...a, ...b]) await deliveries.createIfAbsent(d);

    const first = await claim(storage, T0 + 100, 'w1', 1);
    expect(first.map((d) => d.id)).toEqual([a[1]!.id]);
    const second = await claim(storage, T0 + 100, 'w2');
    // ep_a has one lease held by w1: one more of it, then ep_b's due one; ep_b's later one is not due.
    expect(second.map((d) => d.id)).toEqual([a[2]!.id, b[0]!.id]);
    expect(await claim(storage, T0 + 100, 'w3')).toEqual([]);

    // A finished attempt frees its slot; the lease of a worker that died ends and its delivery is due again.
    const done = first[0]!;
    expect(
      await deliveries.finish(
        done.id,
        { workerId: 'w1', attempts: 0 },
        {
          status: 'succeeded',
          attempts: 1,
          nextAttemptAt: null,
          lastStatusCode: 200,
          lastError: null,
          at: T0 + 200,
        },
      ),
    ).toBe(true);
    expect((await claim(storage, T0 + 300, 'w3')).map((d) => d.id)).toEqual([a[0]!.id]);
    const afterLeases = await claim(storage, T0 + 100 + 30_001, 'w4');
    expect(afterLeases.map((d) => d.id).sort()).toEqual([a[2]!.id, b[0]!.id, b[1]!.id].sort());
  });

  it('claims a retry only when it is due, and never a finished delivery among many', async () => {
    const storage = createMemoryStorage();
    const { deliveries } = storage.webhooks;
    for (let i = 0; i < 5_000; i++) await deliveries.createIfAbsent(delivery('ep_a', T0, 'succeeded'));
    const pending = delivery('ep_a', T0);
    await deliveries.createIfAbsent(pending);
    const [claimed] = await claim(storage, T0);
    expect(claimed?.id).toBe(pending.id);
    await deliveries.finish(
      pending.id,
      { workerId: 'w1', attempts: 0 },
      {
        status: 'pending',
        attempts: 1,
        nextAttemptAt: T0 + 60_000,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
        at: T0,
      },
    );
    expect(await claim(storage, T0 + 59_999)).toEqual([]);
    expect((await claim(storage, T0 + 60_000)).map((d) => d.id)).toEqual([pending.id]);
  });

  it('forgets what a rolled-back transaction wrote, and finds again what it had changed', async () => {
    const storage = createMemoryStorage();
    const { deliveries } = storage.webhooks;
    const kept = delivery('ep_a', T0);
    await deliveries.createIfAbsent(kept);
    const [leased] = await claim(storage, T0);
    await expect(
      storage.transaction(async (tx) => {
        await tx.webhooks.deliveries.createIfAbsent(delivery('ep_b', T0));
        await tx.webhooks.deliveries.release(leased!.id, 'w1');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // The release was taken back: still leased, so nothing is due until the lease ends.
    expect(await claim(storage, T0 + 1)).toEqual([]);
    expect((await claim(storage, T0 + 30_001)).map((d) => d.id)).toEqual([kept.id]);
  });
});

import { expect, it } from 'vitest';
import type { Storage } from '../../core/storage/index.js';
import { aClient, anEvent, anOrder } from './fixtures.js';

const NOW = Date.UTC(2026, 0, 1);

export function transactionContract(storage: () => Storage): void {
  it('commits every write of a transaction together', async () => {
    const s = storage();
    const client = aClient();
    const event = anEvent();
    const result = await s.transaction(async (tx) => {
      await tx.clients.insert(client);
      await tx.outbox.append(event);
      return 'done';
    });
    expect(result).toBe('done');
    expect(await s.clients.get(client.id)).toEqual(client);
    expect(await s.outbox.claim({ now: NOW, limit: 10, leaseMs: 1000 })).toEqual([event]);
  });

  it('rolls back every write when the work throws, and rethrows', async () => {
    const s = storage();
    const kept = aClient();
    await s.clients.insert(kept);
    const client = aClient();
    const failure = new Error('boom');
    await expect(
      s.transaction(async (tx) => {
        await tx.clients.insert(client);
        await tx.orders.insert(anOrder(client.id));
        await tx.clients.update({ ...kept, email: 'moved@example.com', version: 2 }, 1);
        await tx.outbox.append(anEvent());
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await s.clients.get(client.id)).toBeNull();
    expect(await s.orders.listByClients([client.id], {})).toEqual([]);
    expect(await s.clients.get(kept.id)).toEqual(kept);
    expect((await s.clients.list({ email: kept.email }, { offset: 0, limit: 1 })).total).toBe(1);
    await s.clients.insert(aClient({ email: 'moved@example.com' }));
    expect(await s.outbox.claim({ now: NOW, limit: 10, leaseMs: 1000 })).toEqual([]);
  });

  it('lets only one of two concurrent transactions take the same e-mail', async () => {
    const s = storage();
    const email = 'race@example.com';
    const attempt = () =>
      s.transaction(async (tx) => {
        await tx.clients.insert(aClient({ email }));
        await tx.outbox.append(anEvent());
      });
    const results = await Promise.allSettled([attempt(), attempt()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'conflict' } });
    expect(await s.outbox.claim({ now: NOW, limit: 10, leaseMs: 1000 })).toHaveLength(1);
  });

  it('reports readiness', async () => {
    await expect(storage().ping()).resolves.toBeUndefined();
  });
}

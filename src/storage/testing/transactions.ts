import { expect, it } from 'vitest';
import type { ResourceRecord, Storage } from '../../core/storage/index.js';
import { anEvent, at } from './fixtures.js';

const NOW = Date.UTC(2026, 0, 1);
let counter = 0;

function aClient(overrides: Partial<ResourceRecord> = {}): ResourceRecord {
  const n = ++counter;
  return {
    id: `cli_tx_${n}`,
    name: `Client ${n}`,
    email: `client${n}@example.com`,
    createdAt: at(n),
    updatedAt: at(n),
    version: 1,
    ...overrides,
  };
}

const byEmail = (email: string) => ({
  where: { email },
  sort: { field: 'createdAt', descending: false },
  range: { offset: 0, limit: 10 },
});

export function transactionContract(storage: () => Storage): void {
  it('commits every write of a transaction together', async () => {
    const s = storage();
    const client = aClient();
    const event = anEvent();
    const result = await s.transaction(async (tx) => {
      await tx.resources.insert('client', client);
      await tx.outbox.append(event);
      return 'done';
    });
    expect(result).toBe('done');
    expect(await s.resources.get('client', client.id)).toEqual(client);
    expect(await s.outbox.claim({ now: NOW, limit: 10, leaseMs: 1000 })).toEqual([event]);
  });

  it('rolls back every write when the work throws, and rethrows; lists do not see what was taken back', async () => {
    const s = storage();
    const kept = aClient();
    await s.resources.insert('client', kept);
    const client = aClient();
    const failure = new Error('boom');
    await expect(
      s.transaction(async (tx) => {
        await tx.resources.insert('client', client);
        await tx.resources.insert('order', { ...aClient(), id: 'ord_tx', clientId: client.id });
        await tx.resources.update('client', { ...kept, email: 'moved@example.com', version: 2 }, 1);
        // A list inside the transaction sees its writes (and may build an index on them).
        expect((await tx.resources.list('client', byEmail('moved@example.com'))).total).toBe(1);
        await tx.resources.delete('client', kept.id, 2);
        await tx.outbox.append(anEvent());
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await s.resources.get('client', client.id)).toBeNull();
    expect(await s.resources.get('order', 'ord_tx')).toBeNull();
    expect(await s.resources.get('client', kept.id)).toEqual(kept);
    expect((await s.resources.list('client', byEmail('moved@example.com'))).total).toBe(0);
    expect((await s.resources.list('client', byEmail(String(kept.email)))).items).toEqual([kept]);
    expect(await s.outbox.claim({ now: NOW, limit: 10, leaseMs: 1000 })).toEqual([]);
  });

  it('keeps what lists find up to date with every write', async () => {
    const s = storage();
    const client = aClient({ city: 'Lyon' });
    await s.resources.insert('client', client);
    const inLyon = () =>
      s.resources.list('client', { ...byEmail(''), where: { city: 'Lyon' } }).then((page) => page.total);
    expect(await inLyon()).toBe(1);
    await s.resources.update('client', { ...client, city: 'Paris', version: 2 }, 1);
    expect(await inLyon()).toBe(0);
    await s.resources.update('client', { ...client, city: 'Lyon', version: 3 }, 2);
    expect(await inLyon()).toBe(1);
    await s.resources.delete('client', client.id, 3);
    expect(await inLyon()).toBe(0);
  });

  it('reports readiness', async () => {
    await expect(storage().ping()).resolves.toBeUndefined();
  });
}

import { expect, it } from 'vitest';
import type { ResourceRecord, Storage } from '../../core/storage/index.js';
import { at } from './fixtures.js';

let counter = 0;

function aReturn(overrides: Partial<ResourceRecord> = {}): ResourceRecord {
  const n = ++counter;
  return {
    id: `ret_contract_${n}`,
    createdAt: at(n),
    updatedAt: at(n),
    version: 1,
    clientId: 'cli_a',
    reason: `Reason ${n}`,
    quantity: n,
    status: 'requested',
    ...overrides,
  };
}

const everything = { offset: 0, limit: 100 };

export function resourceContract(storage: () => Storage): void {
  it('keeps records per resource: the same id in two resources is two records', async () => {
    const s = storage();
    const record = aReturn();
    await s.resources.insert('return', record);
    await s.resources.insert('exchange', { ...record, reason: 'other' });
    expect(await s.resources.get('return', record.id)).toEqual(record);
    expect((await s.resources.get('exchange', record.id))?.reason).toBe('other');
    expect(await s.resources.get('return', 'ret_none')).toBeNull();
    await expect(s.resources.insert('return', record)).rejects.toThrow();
  });

  it('updates and deletes only at the expected version', async () => {
    const s = storage();
    const record = aReturn();
    await s.resources.insert('return', record);
    const next = { ...record, reason: 'changed', version: 2, updatedAt: at(99) };
    expect(await s.resources.update('return', next, 2)).toBe(false);
    expect(await s.resources.update('return', next, 1)).toBe(true);
    expect(await s.resources.get('return', record.id)).toEqual(next);
    expect(await s.resources.delete('return', record.id, 1)).toBe(false);
    expect(await s.resources.delete('return', record.id, 2)).toBe(true);
    expect(await s.resources.get('return', record.id)).toBeNull();
  });

  it('lists by equality on fields (or one of several values), sorted either way, with the total of the filter', async () => {
    const s = storage();
    const a = aReturn({ clientId: 'cli_x', quantity: 3 });
    const b = aReturn({ clientId: 'cli_x', quantity: 1, status: 'approved' });
    const c = aReturn({ clientId: 'cli_y', quantity: 2 });
    const d = aReturn({ clientId: 'cli_x', quantity: 2, note: null });
    for (const r of [a, b, c, d]) await s.resources.insert('return', r);
    const byClient = await s.resources.list('return', {
      where: { clientId: 'cli_x' },
      sort: { field: 'createdAt', descending: false },
      range: everything,
    });
    expect(byClient).toEqual({ items: [a, b, d], total: 3 });
    const two = await s.resources.list('return', {
      where: { clientId: 'cli_x', status: 'requested' },
      sort: { field: 'quantity', descending: true },
      range: { offset: 0, limit: 1 },
    });
    expect(two).toEqual({ items: [a], total: 2 });
    const byNumber = await s.resources.list('return', {
      where: { quantity: 2 },
      sort: { field: 'createdAt', descending: true },
      range: everything,
    });
    expect(byNumber.items.map((r) => r.id)).toEqual([d.id, c.id]);
    const ofTwo = await s.resources.list('return', {
      where: { clientId: ['cli_x', 'cli_y'], status: 'requested' },
      sort: { field: 'createdAt', descending: false },
      range: everything,
    });
    expect(ofTwo).toEqual({ items: [a, c, d], total: 3 });
    const byIds = await s.resources.list('return', {
      where: { id: [a.id, c.id] },
      sort: { field: 'createdAt', descending: false },
      range: everything,
    });
    expect(byIds.items).toEqual([a, c]);
    const past = await s.resources.list('return', {
      where: { clientId: 'cli_x' },
      sort: { field: 'createdAt', descending: false },
      range: { offset: 10, limit: 5 },
    });
    expect(past).toEqual({ items: [], total: 3 });
  });

  it('lists what the records hold after later writes: changed, moved to another value, deleted', async () => {
    const s = storage();
    const a = aReturn({ clientId: 'cli_m' });
    const b = aReturn({ clientId: 'cli_n' });
    for (const r of [a, b]) await s.resources.insert('return', r);
    const of = (clientId: string | string[]) =>
      s.resources.list('return', {
        where: { clientId },
        sort: { field: 'createdAt', descending: false },
        range: everything,
      });
    // The first list by the field (memory builds its index here); a value given twice counts once.
    expect(await of(['cli_m', 'cli_m', 'cli_n'])).toEqual({ items: [a, b], total: 2 });
    const changed = { ...a, status: 'approved', version: 2 };
    await s.resources.update('return', changed, 1);
    expect((await of('cli_m')).items).toEqual([changed]);
    const moved = { ...changed, clientId: 'cli_n', version: 3 };
    await s.resources.update('return', moved, 2);
    expect(await of('cli_m')).toEqual({ items: [], total: 0 });
    expect((await of(['cli_n'])).items).toEqual([moved, b]);
    await s.resources.delete('return', b.id, 1);
    expect((await of('cli_n')).items).toEqual([moved]);
  });

  it('lists by a part of a text, ignoring case', async () => {
    const s = storage();
    const a = aReturn({ reason: 'Arrived BROKEN' });
    const b = aReturn({ reason: 'too small' });
    const c = aReturn({ reason: '100% broken_glass' });
    for (const r of [a, b, c]) await s.resources.insert('return', r);
    const find = (contains: string) =>
      s.resources
        .list('return', {
          where: { reason: { contains } },
          sort: { field: 'createdAt', descending: false },
          range: everything,
        })
        .then((page) => page.items.map((r) => r.id));
    expect(await find('broken')).toEqual([a.id, c.id]);
    // Wildcards of SQL's LIKE are plain characters here.
    expect(await find('%')).toEqual([c.id]);
    expect(await find('n_g')).toEqual([c.id]);
    expect(await find('a_r')).toEqual([]);
  });

  it('takes a write back when its transaction fails', async () => {
    const s = storage();
    const record = aReturn();
    await expect(
      s.transaction(async (tx) => {
        await tx.resources.insert('return', record);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await s.resources.get('return', record.id)).toBeNull();
  });
}

/** The lock of a resource serialises transactions that take it (PostgreSQL: across connections). */
export function resourceLockContract(storage: () => Storage): void {
  it('lets one transaction at a time hold a resource lock, until it commits', async () => {
    const s = storage();
    const order: string[] = [];
    let releaseFirst: () => void = () => {};
    const firstHolds = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let firstLocked: () => void = () => {};
    const locked = new Promise<void>((resolve) => {
      firstLocked = resolve;
    });
    const first = s.transaction(async (tx) => {
      await tx.resources.lock('booking');
      order.push('first locked');
      firstLocked();
      await firstHolds;
      order.push('first commits');
    });
    await locked;
    const second = s.transaction(async (tx) => {
      await tx.resources.lock('booking');
      order.push('second locked');
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first locked', 'first commits', 'second locked']);
  });
}

import { expect, it } from 'vitest';
import type { DomainEvent } from '../../core/events.js';
import type { FeedRead, Storage } from '../../core/storage/index.js';
import { anEvent, at } from './fixtures.js';

const NOW = Date.UTC(2026, 0, 1);
const idsOf = (read: FeedRead): string[] => read.events.map((e) => e.event.id);

/** The outbox read as the event feed: commit order, positions, types, retention. */
export function eventFeedContract(storage: () => Storage): void {
  it('reads committed events in order, a page at a time, each page going on where the last stopped', async () => {
    const s = storage();
    const events = [anEvent(), anEvent(), anEvent()];
    for (const e of events) await s.outbox.append(e);
    const first = await s.outbox.read({ limit: 2 });
    expect(first.events.map((e) => e.event)).toEqual(events.slice(0, 2));
    expect(first.horizon).toBe(0);
    const [p1, p2] = first.events.map((e) => e.position);
    expect(p2).toBeGreaterThan(p1!);
    expect(first.through).toBe(p2);
    const second = await s.outbox.read({ after: first.through, limit: 2 });
    expect(second.events.map((e) => e.event)).toEqual(events.slice(2));
    expect(second.events[0]!.position).toBeGreaterThan(p2!);
    const third = await s.outbox.read({ after: second.through, limit: 2 });
    expect(third.events).toEqual([]);
    expect(third.through).toBe(second.through);
  });

  it('keeps a relayed event readable, while claims never hand it out again and the backlog drops it', async () => {
    const s = storage();
    const [a, b] = [anEvent(), anEvent()];
    await s.outbox.append(a);
    await s.outbox.append(b);
    await s.outbox.claim({ now: NOW, limit: 10, leaseMs: 1000 });
    await s.outbox.markRelayed([a.id]);
    expect(await s.outbox.backlog()).toBe(1);
    expect(await s.outbox.claim({ now: NOW + 5000, limit: 10, leaseMs: 1000 })).toEqual([b]);
    expect(idsOf(await s.outbox.read({ limit: 10 }))).toEqual([a.id, b.id]);
  });

  it('reads only the types asked for, and goes on past the others', async () => {
    const s = storage();
    const order = anEvent({ type: 'order.created' });
    await s.outbox.append(anEvent({ type: 'client.created' }));
    await s.outbox.append(order);
    await s.outbox.append(anEvent({ type: 'client.updated' }));
    const read = await s.outbox.read({ limit: 10, types: ['order.created', 'order.paid'] });
    expect(idsOf(read)).toEqual([order.id]);
    const all = await s.outbox.read({ limit: 10 });
    // Nothing of those types is left before the last event: the next read starts after it.
    expect(read.through).toBe(all.events.at(-1)!.position);
    expect(await s.outbox.read({ after: read.through, limit: 10, types: ['order.created'] })).toMatchObject({
      events: [],
    });
  });

  it('never shows an event whose transaction rolled back', async () => {
    const s = storage();
    const kept = anEvent();
    await s
      .transaction(async (tx) => {
        await tx.outbox.append(anEvent());
        throw new Error('roll back');
      })
      .catch(() => {});
    await s.outbox.append(kept);
    expect(idsOf(await s.outbox.read({ limit: 10 }))).toEqual([kept.id]);
  });

  it('places an event that commits late after those already read: each read once, none skipped', async () => {
    const s = storage();
    const [late, early] = [anEvent(), anEvent()];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let appended!: () => void;
    const inside = new Promise<void>((resolve) => {
      appended = resolve;
    });
    const committed = s.transaction(async (tx) => {
      await tx.outbox.append(late);
      appended();
      await held;
    });
    await inside;
    await s.outbox.append(early);
    // A read while the transaction is open: it sees `early` only, or waits for `late` to commit.
    const first = s.outbox.read({ limit: 10 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await committed;
    const one = await first;
    const two = await s.outbox.read({ after: one.through, limit: 10 });
    const seen = [...idsOf(one), ...idsOf(two)];
    expect([...seen].sort()).toEqual([late.id, early.id].sort());
    expect(two.events.every((e) => e.position > one.through)).toBe(true);
  });

  it('prunes the events that occurred before the cutoff, oldest first, up to the first younger one', async () => {
    const s = storage();
    const old = (n: number, more: Partial<DomainEvent> = {}) => anEvent({ occurredAt: at(n), ...more });
    const [a, b, young, late] = [old(1), old(2), old(100), old(3)];
    for (const e of [a, b, young, late]) await s.outbox.append(e);
    await s.outbox.markRelayed([a.id, b.id, young.id, late.id]);
    const before = await s.outbox.read({ limit: 10 });
    // Cut at 50 s: a and b go; `late` is old but placed after `young`, so it stays with it.
    expect(await s.outbox.prune(Date.parse(at(50)))).toBe(2);
    const after = await s.outbox.read({ limit: 10 });
    expect(idsOf(after)).toEqual([young.id, late.id]);
    expect(after.horizon).toBe(before.events[1]!.position);
    // A reader still before the horizon is told where it is (the caller decides what to answer).
    expect((await s.outbox.read({ after: before.events[0]!.position, limit: 10 })).horizon).toBe(
      after.horizon,
    );
    expect(await s.outbox.prune(Date.parse(at(50)))).toBe(0);
  });

  it('moves the horizon past an old event the relay still holds, and removes it once relayed', async () => {
    const s = storage();
    const [stuck, relayed, young] = [
      anEvent({ occurredAt: at(1) }),
      anEvent({ occurredAt: at(2) }),
      anEvent({ occurredAt: at(100) }),
    ];
    for (const e of [stuck, relayed, young]) await s.outbox.append(e);
    await s.outbox.markRelayed([relayed.id, young.id]);
    expect(await s.outbox.prune(Date.parse(at(50)))).toBe(1);
    // Out of the feed, still the relay's.
    expect(idsOf(await s.outbox.read({ limit: 10 }))).toEqual([young.id]);
    expect(await s.outbox.backlog()).toBe(1);
    expect(await s.outbox.claim({ now: NOW, limit: 10, leaseMs: 1000 })).toEqual([stuck]);
    await s.outbox.markRelayed([stuck.id]);
    expect(await s.outbox.prune(Date.parse(at(50)))).toBe(1);
    expect(await s.outbox.backlog()).toBe(0);
    expect(idsOf(await s.outbox.read({ limit: 10 }))).toEqual([young.id]);
  });
}

import { expect, it } from 'vitest';
import type { Storage } from '../../core/storage/index.js';
import { anEvent } from './fixtures.js';

const NOW = Date.UTC(2026, 0, 1);

export function outboxContract(storage: () => Storage): void {
  it('hands out appended events oldest first, within the limit', async () => {
    const s = storage();
    const events = [anEvent(), anEvent(), anEvent()];
    for (const e of events) await s.outbox.append(e);
    expect(await s.outbox.claim({ now: NOW, limit: 2, leaseMs: 1000 })).toEqual(events.slice(0, 2));
    expect(await s.outbox.claim({ now: NOW, limit: 2, leaseMs: 1000 })).toEqual(events.slice(2));
  });

  it('keeps an event’s traceparent and interface, and counts what waits to be relayed', async () => {
    const s = storage();
    const before = await s.outbox.backlog();
    const traced = anEvent({
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      via: 'mcp',
    });
    await s.outbox.append(traced);
    await s.outbox.append(anEvent());
    expect(await s.outbox.backlog()).toBe(before + 2);
    const claimed = await s.outbox.claim({ now: NOW, limit: 1000, leaseMs: 1000 });
    expect(claimed.find((e) => e.id === traced.id)).toEqual(traced);
    expect(await s.outbox.backlog()).toBe(before + 2);
    await s.outbox.markRelayed(claimed.map((e) => e.id));
    expect(await s.outbox.backlog()).toBe(before + 2 - claimed.length);
  });

  it('does not hand out a claimed event again until its lease ends', async () => {
    const s = storage();
    const event = anEvent();
    await s.outbox.append(event);
    expect(await s.outbox.claim({ now: NOW, limit: 10, leaseMs: 1000 })).toEqual([event]);
    expect(await s.outbox.claim({ now: NOW + 999, limit: 10, leaseMs: 1000 })).toEqual([]);
    expect(await s.outbox.claim({ now: NOW + 1000, limit: 10, leaseMs: 1000 })).toEqual([event]);
  });

  it('never hands out a relayed event again', async () => {
    const s = storage();
    const [a, b] = [anEvent(), anEvent()];
    await s.outbox.append(a);
    await s.outbox.append(b);
    await s.outbox.claim({ now: NOW, limit: 10, leaseMs: 1000 });
    await s.outbox.markRelayed([a.id]);
    expect(await s.outbox.claim({ now: NOW + 5000, limit: 10, leaseMs: 1000 })).toEqual([b]);
  });

  it('gives concurrent claimers disjoint events', async () => {
    const s = storage();
    const events = Array.from({ length: 20 }, () => anEvent());
    for (const e of events) await s.outbox.append(e);
    const batches = await Promise.all(
      Array.from({ length: 5 }, () => s.outbox.claim({ now: NOW, limit: 6, leaseMs: 1000 })),
    );
    const ids = batches.flat().map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(events.map((e) => e.id).sort());
  });
}

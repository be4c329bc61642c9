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

  it('numbers each subject’s events 1, 2, 3 in the order they commit, and gives a rolled-back number back', async () => {
    const s = storage();
    const order = `ord_seq_${Math.random().toString(36).slice(2)}`;
    const other = `${order}_other`;
    const appended = [
      anEvent({ subject: order }),
      anEvent({ subject: other }),
      anEvent({ subject: order }),
      anEvent(),
    ];
    for (const e of appended) await s.outbox.append(e);
    // A transaction that fails takes its number with it.
    await expect(
      s.transaction(async (tx) => {
        await tx.outbox.append(anEvent({ subject: order }));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const last = anEvent({ subject: order });
    await s.transaction((tx) => tx.outbox.append(last));
    const claimed = await s.outbox.claim({ now: NOW, limit: 1000, leaseMs: 1000 });
    const sequenceOf = (id: string) => claimed.find((e) => e.id === id)?.sequence;
    expect([appended[0]!, appended[2]!, last].map((e) => sequenceOf(e.id))).toEqual([1, 2, 3]);
    expect(sequenceOf(appended[1]!.id)).toBe(1);
    expect(claimed.find((e) => e.id === appended[3]!.id)).toEqual(appended[3]);
    expect(claimed.find((e) => e.id === last.id)).toEqual({ ...last, sequence: 3 });
  });

  it('gives concurrent writers of one subject distinct, gapless numbers', async () => {
    const s = storage();
    const subject = `conv_seq_${Math.random().toString(36).slice(2)}`;
    const events = Array.from({ length: 8 }, () => anEvent({ subject }));
    await Promise.all(events.map((e) => s.transaction((tx) => tx.outbox.append(e))));
    const claimed = await s.outbox.claim({ now: NOW, limit: 1000, leaseMs: 1000 });
    const numbers = claimed.filter((e) => e.subject === subject).map((e) => e.sequence);
    expect(numbers.sort((a, b) => a! - b!)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
}

import { describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import { createMemoryEventBus, createOutboxRelay, createRuntime, type DomainEvent } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { manualClock } from '../support/clock.js';
import { manualTimers, settled } from '../support/timers.js';

let n = 0;
function anEvent(): DomainEvent {
  n++;
  return { id: `evt_relay_${n}`, type: 'client.created', occurredAt: '2026-01-01T00:00:00.000Z', data: {} };
}

/** A relay over memory storage whose outbox refuses the first `refusals` claims, on manual timers. */
function setup(refusals = 0) {
  const storage = createMemoryStorage();
  let claims = 0;
  let refusing = refusals;
  const counted: Storage = {
    ...storage,
    outbox: {
      ...storage.outbox,
      claim: async (options) => {
        claims++;
        if (refusing-- > 0) throw new Error('the database is restarting');
        return storage.outbox.claim(options);
      },
    },
  };
  const bus = createMemoryEventBus();
  const seen: string[] = [];
  bus.subscribe((e) => void seen.push(e.id));
  const timers = manualTimers();
  const relay = createOutboxRelay(createRuntime({ storage: counted, clock: manualClock(), timers }), { bus });
  return { storage, relay, timers, seen, claims: () => claims };
}

describe('outbox relay in the background', () => {
  it('backs off while its storage refuses to claim, doubling the wait, and relays once it answers', async () => {
    const { storage, relay, timers, seen, claims } = setup(2);
    const event = anEvent();
    await storage.outbox.append(event);
    relay.start({ intervalMs: 1_000 });
    await settled();
    expect(claims()).toBe(1);
    await timers.advance(999);
    expect(claims()).toBe(1);
    await timers.advance(1);
    expect(claims()).toBe(2);
    relay.kick(); // a commit meanwhile does not cut the wait short
    await timers.advance(1_999);
    expect(claims()).toBe(2);
    expect(seen).toEqual([]);
    await timers.advance(1);
    // The third claim took the event; having relayed it, the relay looked again at once and found none.
    expect(claims()).toBe(4);
    expect(seen).toEqual([event.id]);
    await relay.stop();
  });

  it('relays a commit a moment after a kick, and otherwise looks every interval', async () => {
    const { storage, relay, timers, seen, claims } = setup();
    relay.start({ intervalMs: 60_000 });
    await settled();
    const kicked = anEvent();
    await storage.outbox.append(kicked);
    relay.kick();
    await timers.advance(0);
    expect(seen).toEqual([kicked.id]);
    const polled = anEvent();
    await storage.outbox.append(polled);
    const before = claims();
    await timers.advance(59_999);
    expect(seen).toEqual([kicked.id]);
    await timers.advance(1);
    expect(claims()).toBeGreaterThan(before);
    expect(seen).toEqual([kicked.id, polled.id]);
    await relay.stop();
  });

  it('keeps one batch in flight, so events committed meanwhile go out after it, in commit order', async () => {
    const { storage, relay, timers, seen } = setup();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const batches: string[][] = [];
    relay.use(async (events) => {
      batches.push(events.map((e) => e.id));
      if (batches.length === 1) await gate;
    });
    const first = anEvent();
    await storage.outbox.append(first);
    relay.start({ intervalMs: 1_000 });
    await settled();
    expect(batches).toEqual([[first.id]]);
    const second = anEvent();
    await storage.outbox.append(second);
    relay.kick();
    await timers.advance(1_000);
    expect(batches).toEqual([[first.id]]);
    open();
    await settled();
    expect(batches).toEqual([[first.id], [second.id]]);
    expect(seen).toEqual([first.id, second.id]);
    await relay.stop();
  });
});

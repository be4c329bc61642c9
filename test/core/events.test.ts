import { describe, expect, it } from 'vitest';
import {
  createDomain,
  createMemoryEventBus,
  createOutboxRelay,
  createRuntime,
  type DomainEvent,
  type Logger,
  matchesEventType,
} from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { countingIds, manualClock } from '../support/clock.js';

const event = (type: string, id = type): DomainEvent => ({
  id,
  type,
  occurredAt: '2026-01-01T00:00:00Z',
  data: {},
});

describe('event types', () => {
  it('match exactly, by resource wildcard, or all', () => {
    expect(matchesEventType('order.created', 'order.created')).toBe(true);
    expect(matchesEventType('order.*', 'order.shipped')).toBe(true);
    expect(matchesEventType('order.*', 'orders.shipped')).toBe(false);
    expect(matchesEventType('*', 'client.deleted')).toBe(true);
    expect(matchesEventType('client.created', 'client.updated')).toBe(false);
  });
});

describe('memory event bus', () => {
  it('delivers to listeners whose patterns match, until they unsubscribe', async () => {
    const bus = createMemoryEventBus();
    const orders: string[] = [];
    const all: string[] = [];
    const stop = bus.subscribe((e) => void orders.push(e.type), { types: ['order.*'] });
    bus.subscribe((e) => void all.push(e.type));
    await bus.publish(event('order.created'));
    await bus.publish(event('client.created'));
    stop();
    await bus.publish(event('order.paid'));
    expect(orders).toEqual(['order.created']);
    expect(all).toEqual(['order.created', 'client.created', 'order.paid']);
  });

  it('keeps serving other listeners when one throws, and logs the failure', async () => {
    const logged: string[] = [];
    const logger: Logger = { log: (level, message) => void logged.push(`${level}: ${message}`) };
    const bus = createMemoryEventBus({ logger });
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error('broken listener');
    });
    bus.subscribe((e) => void seen.push(e.id));
    await bus.publish(event('message.created', 'evt_1'));
    expect(seen).toEqual(['evt_1']);
    expect(logged).toEqual(['error: event listener failed']);
  });

  it("sends a topic's messages to its listeners only, each listening on its own, until it ends", async () => {
    const logged: string[] = [];
    const bus = createMemoryEventBus({
      logger: { log: (level, message) => void logged.push(`${level}: ${message}`) },
    });
    const heard: string[] = [];
    const listener = (message: string | null) => void heard.push(`credentials ${message}`);
    const stop = bus.receive!('credentials', listener);
    const stopTwin = bus.receive!('credentials', listener);
    bus.receive!('other', (message) => void heard.push(`other ${message}`));
    bus.receive!('credentials', () => {
      throw new Error('broken listener');
    });
    await bus.send!('credentials', '{"grant":"grt_1"}');
    stop();
    await bus.send!('credentials', '{"grant":"grt_2"}');
    stopTwin();
    await bus.send!('credentials', '{"grant":"grt_3"}');
    expect(heard).toEqual([
      'credentials {"grant":"grt_1"}',
      'credentials {"grant":"grt_1"}',
      'credentials {"grant":"grt_2"}',
    ]);
    expect(logged).toEqual(Array(3).fill('error: topic listener failed'));
  });

  it('refuses a topic or message no bus could carry', async () => {
    const bus = createMemoryEventBus();
    await expect(bus.send!('Credentials:x', 'm')).rejects.toThrow('A topic is lower-case letters');
    await expect(bus.send!('credentials', 'x'.repeat(2001))).rejects.toThrow('at most 2000 characters');
  });
});

describe('outbox relay', () => {
  function setup() {
    const storage = createMemoryStorage();
    const clock = manualClock();
    const bus = createMemoryEventBus();
    const seen: string[] = [];
    bus.subscribe((e) => void seen.push(e.type));
    const runtime = createRuntime({ storage, clock, ids: countingIds() });
    const relay = createOutboxRelay(runtime, { bus, leaseMs: 10_000 });
    const domain = createDomain(runtime, { onCommit: () => relay.kick() });
    return { storage, clock, bus, seen, relay, domain };
  }

  it('publishes committed events in commit order, once', async () => {
    const { seen, relay, domain } = setup();
    const client = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    await domain.orders.create({ clientId: client.id, total: '1.00', currency: 'EUR' });
    await domain.messages.create({ chatbotId: 'b', visitorId: 'v', content: 'hi' });
    expect(await relay.flush()).toBe(4);
    expect(await relay.flush()).toBe(0);
    // The first message of a visitor starts their conversation in the same transaction.
    expect(seen).toEqual(['client.created', 'order.created', 'conversation.created', 'message.created']);
  });

  it('publishes soon after a commit when kicked, without an explicit flush', async () => {
    const { bus, domain } = setup();
    const received = new Promise<DomainEvent>((resolve) => bus.subscribe(resolve));
    await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    expect((await received).type).toBe('client.created');
  });

  it('retries an event whose durable handler failed once its lease has passed', async () => {
    const { clock, seen, relay, domain } = setup();
    let failures = 1;
    const handled: string[] = [];
    relay.use(async (events) => {
      if (failures-- > 0) throw new Error('receiver store down');
      handled.push(...events.map((e) => e.type));
    });
    await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    expect(await relay.flush()).toBe(0);
    expect(seen).toEqual([]);
    clock.advance(9_999);
    expect(await relay.flush()).toBe(0);
    clock.advance(1);
    expect(await relay.flush()).toBe(1);
    expect(handled).toEqual(['client.created']);
    expect(seen).toEqual(['client.created']);
  });

  it('hands a claimed batch to a handler at once, and retries a failed batch one event at a time', async () => {
    const { storage, clock, bus, seen } = setup();
    const runtime = createRuntime({ storage, clock });
    const domain = createDomain(runtime); // no kick: the flush below is the only one
    const relay = createOutboxRelay(runtime, { bus, leaseMs: 10_000 });
    // The conversation the messages below join, published before the handler that refuses one.
    await domain.resources.conversation!.create({ chatbotId: 'b', visitorId: 'v', channel: 'web' });
    expect(await relay.flush()).toBe(1);
    seen.length = 0;
    const messages = [];
    for (const content of ['one', 'poison', 'three'])
      messages.push(await domain.messages.create({ chatbotId: 'b', visitorId: 'v', content }));
    const poison = messages[1]!.id;
    const batches: string[][] = [];
    relay.use(async (events) => {
      batches.push(events.map((e) => (e.data as { id: string }).id));
      if (events.some((e) => (e.data as { id: string }).id === poison)) throw new Error('cannot take it');
    });
    expect(await relay.flush()).toBe(2);
    const [a, , c] = messages.map((m) => m.id);
    expect(batches).toEqual([[a, poison, c], [a], [poison], [c]]);
    expect(seen).toEqual(['message.created', 'message.created']);
    // The bad one alone waits for its lease to end, and is handed out again by itself.
    clock.advance(10_000);
    expect(await relay.flush()).toBe(0);
    expect(batches.at(-1)).toEqual([poison]);
  });

  it('lets two relays on one storage share the outbox without relaying an event twice', async () => {
    const { storage, clock, bus, seen } = setup();
    const runtime = createRuntime({ storage, clock });
    const domain = createDomain(runtime); // no kick: only the two relays below publish
    const other = createOutboxRelay(runtime, { bus });
    const mine = createOutboxRelay(runtime, { bus });
    for (let i = 0; i < 20; i++) await domain.clients.create({ name: `${i}`, email: `c${i}@example.com` });
    const counts = await Promise.all([mine.flush(), other.flush()]);
    expect(counts[0] + counts[1]).toBe(20);
    expect(seen).toHaveLength(20);
  });

  it('stops polling and waits for the flush in progress', async () => {
    const { relay, domain, seen } = setup();
    relay.start({ intervalMs: 5 });
    await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    await relay.stop();
    await relay.flush();
    expect(seen).toEqual(['client.created']);
  });
});

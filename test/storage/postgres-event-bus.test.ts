import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/index.js';
import {
  createPostgresEventBus,
  createPostgresStorage,
  type PostgresEventBus,
} from '../../src/storage/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

let db: TestDatabase;
const buses: PostgresEventBus[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await createPostgresStorage({ pool: db.pool }).migrate();
});
afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  await db?.drop();
});

/** A bus as a separate instance would have it: its own pool from the connection string. */
async function instance(): Promise<PostgresEventBus> {
  const bus = createPostgresEventBus({ connectionString: db.url });
  buses.push(bus);
  await bus.ready();
  return bus;
}

let n = 0;
function anEvent(overrides: Partial<DomainEvent> = {}): DomainEvent {
  n++;
  return {
    id: `evt_bus_${n}`,
    type: 'message.created',
    occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    data: { content: `hello ${n}` },
    ...overrides,
  };
}

/** Collects what a bus delivers; `next(k)` resolves once k events have arrived. */
function collect(bus: PostgresEventBus, types?: readonly string[]) {
  const events: DomainEvent[] = [];
  let wake: (() => void) | undefined;
  bus.subscribe(
    (event) => {
      events.push(event);
      wake?.();
    },
    types ? { types } : {},
  );
  return {
    events,
    async next(count: number): Promise<DomainEvent[]> {
      while (events.length < count) await new Promise<void>((resolve) => (wake = resolve));
      return events;
    },
  };
}

describe('PostgreSQL event bus', () => {
  it('delivers an event published on one instance to subscribers on every instance, once each', async () => {
    const [a, b, c] = [await instance(), await instance(), await instance()];
    const [onA, onB, onC] = [collect(a), collect(b), collect(c)];
    const event = anEvent();
    await a.publish(event);
    expect(await onB.next(1)).toEqual([event]);
    expect(await onC.next(1)).toEqual([event]);
    expect(onA.events).toEqual([event]);

    // A second event proves nothing was delivered twice in between; it carries its owner and interface.
    const second = anEvent({ owner: 'cli_ada', via: 'mcp' });
    await c.publish(second);
    expect(await onA.next(2)).toEqual([event, second]);
    expect(await onB.next(2)).toEqual([event, second]);
  });

  it('carries events far larger than the 8000-byte NOTIFY payload limit', async () => {
    const [a, b] = [await instance(), await instance()];
    const onB = collect(b);
    const big = anEvent({ data: { content: 'x'.repeat(100_000), nested: { list: [1, 2, 3] } } });
    await a.publish(big);
    expect(await onB.next(1)).toEqual([big]);
  });

  it('keeps the order of events published by one instance', async () => {
    const [a, b] = [await instance(), await instance()];
    const onB = collect(b);
    const events = Array.from({ length: 50 }, () => anEvent());
    for (const event of events) await a.publish(event);
    expect((await onB.next(50)).map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it('keeps the order of events published together (stored by one statement)', async () => {
    const [a, b] = [await instance(), await instance()];
    const onB = collect(b);
    const events = Array.from({ length: 120 }, () => anEvent());
    await Promise.all(events.map((event) => a.publish(event)));
    expect((await onB.next(120)).map((e) => e.id)).toEqual(events.map((e) => e.id));
  });

  it('delivers only the event types a subscriber asked for', async () => {
    const [a, b] = [await instance(), await instance()];
    const orders = collect(b, ['order.*']);
    const all = collect(b);
    await a.publish(anEvent({ type: 'client.created' }));
    const shipped = anEvent({ type: 'order.shipped' });
    await a.publish(shipped);
    await all.next(2);
    expect(orders.events).toEqual([shipped]);
  });

  it('reconnects after losing its connection and catches up on what it missed', async () => {
    const a = await instance();
    const b = createPostgresEventBus({ connectionString: db.url, reconnectDelayMs: 300 });
    buses.push(b);
    await b.ready();
    const onB = collect(b);

    const { rows } = await db.pool.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
       WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    expect(rows.length).toBeGreaterThan(0);
    const whileAway = anEvent();
    await a.publish(whileAway);
    expect(await onB.next(1)).toEqual([whileAway]);

    await b.ready();
    const after = anEvent();
    await a.publish(after);
    expect(await onB.next(2)).toEqual([whileAway, after]);
  });

  it("sends a topic's messages to its listeners on every instance, once each, and no other topic's", async () => {
    const [a, b] = [await instance(), await instance()];
    const heard = { a: [] as (string | null)[], b: [] as (string | null)[] };
    let wake: (() => void) | undefined;
    a.receive!('credentials', (message) => void heard.a.push(message));
    b.receive!('credentials', (message) => {
      heard.b.push(message);
      wake?.();
    });
    b.receive!('other', (message) => void heard.b.push(`other ${message}`));
    const arrived = (count: number) =>
      (async () => {
        while (heard.b.length < count) await new Promise<void>((resolve) => (wake = resolve));
      })();
    // Near the size limit, in characters of two bytes each (a NOTIFY payload is counted in bytes).
    const long = 'é'.repeat(1990);
    await a.send!('credentials', '{"apiKey":"key_1"}');
    await a.send!('credentials', long);
    await arrived(2);
    expect(heard.a).toEqual(['{"apiKey":"key_1"}', long]);
    expect(heard.b).toEqual(['{"apiKey":"key_1"}', long]);
  });

  it('tells topic listeners that messages may have been missed when it loses its connection, and when it is back', async () => {
    const b = createPostgresEventBus({ connectionString: db.url, reconnectDelayMs: 300 });
    buses.push(b);
    await b.ready();
    const heard: (string | null)[] = [];
    b.receive!('credentials', (message) => void heard.push(message));
    await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    while (heard.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).toEqual([null, null]);
    await b.ready();
    const a = await instance();
    await a.send!('credentials', '{"grant":"grt_1"}');
    while (heard.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).toEqual([null, null, '{"grant":"grt_1"}']);
  });

  it('still serves its own subscribers when the database is unreachable', async () => {
    const bus = createPostgresEventBus({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    const mine = collect(bus);
    const event = anEvent();
    await bus.publish(event);
    expect(mine.events).toEqual([event]);
    const heard: (string | null)[] = [];
    bus.receive!('credentials', (message) => void heard.push(message));
    await bus.send!('credentials', '{"grant":"grt_1"}');
    expect(heard).toEqual(['{"grant":"grt_1"}']);
    await bus.close();
    await expect(bus.ready()).rejects.toThrow('closed');
  });
});

import type { PoolClient } from 'pg';
import { checkTopicMessage, createMemoryEventBus, type EventBus } from '../../core/event-bus.js';
import type { DomainEvent } from '../../core/events.js';
import { type Clock, type Logger, silentLogger, systemClock } from '../../core/runtime.js';
import { connect, type PostgresConnectionOptions } from './connection.js';
import { translate } from './database.js';
import { toEvent } from './outbox.js';

/** Options of {@link createPostgresEventBus}: the connection, the NOTIFY channel, retention, reconnects. */
export type PostgresEventBusOptions = PostgresConnectionOptions & {
  /**
   * The NOTIFY channel; instances that share it share events (default `switchboard_events`). Topic
   * messages (`send`) go on a second channel, its first 56 characters and `_topics`.
   */
  readonly channel?: string;
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** How long published events stay readable, for listeners that reconnect and catch up (default 10 min). */
  readonly retentionMs?: number;
  /** First wait before reconnecting a lost listening connection; doubles up to 30 s (default 250 ms). */
  readonly reconnectDelayMs?: number;
};

/** An {@link EventBus} shared by every instance connected to one PostgreSQL database. */
export interface PostgresEventBus extends EventBus {
  /** Resolves once this instance listens: events published anywhere from then on reach its subscribers. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

interface BusRow {
  seq: string;
  id: string;
  type: string;
  occurred_at: string;
  data: Record<string, unknown>;
  owner: string | null;
  via: string | null;
}

const SWEEP_EVERY_MS = 60_000;
const MAX_RECONNECT_DELAY_MS = 30_000;
/** Sequence numbers already delivered, so a catch-up after a reconnect does not deliver twice. */
const REMEMBERED = 10_000;

/**
 * A cross-instance event bus over PostgreSQL `LISTEN/NOTIFY`. `publish` delivers to this instance's
 * subscribers at once, and stores the event in `switchboard_bus_events` and notifies a reference to
 * that row in the same statement; other instances read the row when notified. Events of any size
 * pass, while a NOTIFY payload is limited to 8000 bytes. A lost listening connection is reopened with
 * backoff, and the events published meanwhile are read back from the table. Best effort, like every
 * event bus: durable consumers (webhooks) read the outbox instead. Topic messages (`send`) are carried
 * by the NOTIFY alone, not stored: their listeners get `null` when the connection is lost and again
 * when it is back, since messages sent in between are not read back.
 *
 * The table comes with the storage's migrations: call `createPostgresStorage(…).migrate()` first.
 *
 * @example
 * const storage = createPostgresStorage({ connectionString });
 * await storage.migrate();
 * const bus = createPostgresEventBus({ connectionString });
 * await bus.ready();
 * const switchboard = createSwitchboard({ storage, bus });
 */
export function createPostgresEventBus(options: PostgresEventBusOptions): PostgresEventBus {
  const channel = options.channel ?? 'switchboard_events';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) {
    throw new TypeError(`The channel must be a lower-case SQL identifier (got "${channel}").`);
  }
  // Apart from the events' channel, so an instance of an earlier version ignores what it cannot read.
  const topicChannel = `${channel.slice(0, 56)}_topics`;
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? systemClock;
  const retentionMs = options.retentionMs ?? 600_000;
  const firstDelay = options.reconnectDelayMs ?? 250;
  const connection = connect(options, logger, 4);
  const { pool } = connection;
  const origin = crypto.randomUUID().replaceAll('-', '');
  const local = createMemoryEventBus({ logger });
  const topicListeners = new Set<(message: string | null, topic: string | null) => void>();
  /** Tells every topic's listeners that messages may have been missed. */
  const gap = (): void => {
    for (const listener of topicListeners) listener(null, null);
  };

  let closed = false;
  let listener: { readonly client: PoolClient; readonly drop: () => void } | undefined;
  let highest = -1;
  const delivered = new Set<number>();
  let pending: number[] = [];
  let draining: Promise<void> | undefined;
  let nextSweep = 0;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;

  function remember(seq: number): boolean {
    if (delivered.has(seq)) return false;
    delivered.add(seq);
    if (delivered.size > REMEMBERED) delivered.delete(delivered.values().next().value as number);
    highest = Math.max(highest, seq);
    return true;
  }

  async function deliver(rows: BusRow[]): Promise<void> {
    for (const row of rows) {
      if (!remember(Number(row.seq))) continue;
      await local.publish(toEvent(row));
    }
  }

  /** Reads the notified rows in batches, in order, one batch at a time. */
  function drain(): Promise<void> {
    draining ??= (async () => {
      try {
        while (pending.length > 0 && !closed) {
          const batch = pending;
          pending = [];
          const { rows } = await pool.query<BusRow>(
            'SELECT seq, id, type, occurred_at, data, owner, via FROM switchboard_bus_events WHERE seq = ANY($1) ORDER BY seq',
            [batch],
          );
          await deliver(rows);
        }
      } catch (error) {
        logger.log('error', 'could not read published events', { error: String(error) });
      } finally {
        draining = undefined;
      }
    })();
    return draining;
  }

  async function catchUp(): Promise<void> {
    const { rows } = await pool.query<BusRow>(
      `SELECT seq, id, type, occurred_at, data, owner, via FROM switchboard_bus_events
       WHERE seq > $1 AND origin <> $2 ORDER BY seq`,
      [highest, origin],
    );
    await deliver(rows);
  }

  let waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];

  /** Opens the listening connection; on success wakes `ready()` callers, on failure throws. */
  async function listen(): Promise<void> {
    const client = await pool.connect();
    let established = false;
    let released = false;
    const drop = (error?: unknown): void => {
      if (released) return;
      released = true;
      client.release(true);
      if (listener?.client !== client) return;
      listener = undefined;
      if (closed || !established) return;
      logger.log('warn', 'event bus lost its PostgreSQL connection; reconnecting', { error: String(error) });
      gap();
      scheduleReconnect(firstDelay);
    };
    client.on('error', drop);
    client.on('end', () => drop(new Error('connection ended')));
    client.on('notification', ({ channel: from, payload }) => {
      if (from === topicChannel && payload) {
        // origin:topic:message (neither origin nor topic holds a colon).
        const first = payload.indexOf(':');
        const second = payload.indexOf(':', first + 1);
        if (first < 0 || second < 0 || payload.slice(0, first) === origin) return;
        const topic = payload.slice(first + 1, second);
        for (const listener of topicListeners) listener(payload.slice(second + 1), topic);
        return;
      }
      if (from !== channel || !payload) return;
      const [sender, seq] = payload.split(':');
      if (sender === origin || seq === undefined) return;
      pending.push(Number(seq));
      void drain();
    });
    let reconnected = false;
    try {
      await client.query(`LISTEN ${channel}; LISTEN ${topicChannel}`);
      if (highest < 0) {
        const { rows } = await pool.query<{ max: string }>(
          'SELECT COALESCE(max(seq), 0) AS max FROM switchboard_bus_events',
        );
        highest = Math.max(highest, Number(rows[0]?.max ?? 0));
      } else {
        // Whatever other instances published while this one was not listening.
        await catchUp();
        reconnected = true;
      }
    } catch (error) {
      drop(error);
      throw error;
    }
    if (closed) {
      drop();
      return;
    }
    established = true;
    listener = { client, drop };
    if (reconnected) gap();
    for (const waiter of waiters) waiter.resolve();
    waiters = [];
  }

  function scheduleReconnect(delay: number): void {
    if (closed || reconnectTimer !== undefined) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      listen().catch((error: unknown) => {
        logger.log('warn', 'event bus could not listen; retrying', { error: String(error), delayMs: delay });
        scheduleReconnect(Math.min(delay * 2, MAX_RECONNECT_DELAY_MS));
      });
    }, delay);
  }

  listen().catch((error: unknown) => {
    logger.log('warn', 'event bus could not listen yet; retrying', { error: String(error) });
    scheduleReconnect(firstDelay);
  });

  /** Events published in the same tick are stored (and notified) by one statement. */
  let batch: DomainEvent[] | undefined;
  let batchStored: Promise<void> = Promise.resolve();
  function store(event: DomainEvent): Promise<void> {
    if (!batch) {
      const events: DomainEvent[] = [];
      batch = events;
      batchStored = Promise.resolve().then(() => {
        batch = undefined;
        return storeAll(events);
      });
    }
    batch.push(event);
    return batchStored;
  }

  async function storeAll(events: readonly DomainEvent[]): Promise<void> {
    const now = clock.now();
    try {
      await pool.query(
        `WITH stored AS (
           INSERT INTO switchboard_bus_events (id, origin, type, occurred_at, data, owner, via, published_ms)
           SELECT e.id, $1, e.type, e.occurred_at, e.data::json, e.owner, e.via, $2
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $8::text[], $9::text[])
             AS e(id, type, occurred_at, data, owner, via)
           ON CONFLICT (id) DO NOTHING RETURNING seq
         )
         SELECT pg_notify($7, $1 || ':' || seq) FROM stored`,
        [
          origin,
          now,
          events.map((e) => e.id),
          events.map((e) => e.type),
          events.map((e) => e.occurredAt),
          events.map((e) => JSON.stringify(e.data)),
          channel,
          events.map((e) => e.owner ?? null),
          events.map((e) => e.via ?? null),
        ],
      );
      if (now >= nextSweep) {
        nextSweep = now + SWEEP_EVERY_MS;
        await pool.query('DELETE FROM switchboard_bus_events WHERE published_ms < $1', [now - retentionMs]);
      }
    } catch (error) {
      // Best effort: this instance's subscribers have the events; others miss them, as with any live bus.
      logger.log('error', 'could not publish events to other instances', {
        eventIds: events.map((e) => e.id),
        error: String(translate(error)),
      });
    }
  }

  return {
    async publish(event) {
      await Promise.all([local.publish(event), store(event)]);
    },
    subscribe: (listener, subscribeOptions) => local.subscribe(listener, subscribeOptions),
    async send(topic, message) {
      checkTopicMessage(topic, message);
      await local.send?.(topic, message);
      try {
        await pool.query('SELECT pg_notify($1, $2)', [topicChannel, `${origin}:${topic}:${message}`]);
      } catch (error) {
        // Best effort, like publish: other instances' listeners rely on their own safety nets.
        logger.log('error', 'could not send a topic message to other instances', {
          topic,
          error: String(translate(error)),
        });
      }
    },
    receive(topic, topicListener) {
      const stopLocal = local.receive!(topic, topicListener);
      const remote = (message: string | null, from: string | null): void => {
        if (from !== null && from !== topic) return;
        try {
          topicListener(message);
        } catch (error) {
          logger.log('error', 'topic listener failed', { topic, error: String(error) });
        }
      };
      topicListeners.add(remote);
      return () => {
        stopLocal();
        topicListeners.delete(remote);
      };
    },
    ready() {
      if (listener) return Promise.resolve();
      if (closed) return Promise.reject(new Error('The event bus is closed.'));
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(reconnectTimer);
      for (const waiter of waiters) waiter.reject(new Error('The event bus is closed.'));
      waiters = [];
      const current = listener;
      listener = undefined;
      if (current) {
        await current.client.query(`UNLISTEN ${channel}; UNLISTEN ${topicChannel}`).catch(() => {});
        current.drop();
      }
      await draining;
      await connection.end();
    },
  };
}

import { SpanKind, trace } from '@opentelemetry/api';
import type { EventBus } from './event-bus.js';
import type { DomainEvent } from './events.js';
import type { Runtime } from './runtime.js';
import { contextOfTraceparent, inSpan } from './telemetry/index.js';
import { createWorkerLoop } from './worker-loop.js';

/**
 * A durable consumer of committed events (e.g. webhook fan-out), given a batch of them, oldest first, so
 * it can write for all of them at once. Must be idempotent per event id: a batch that fails is handed
 * out again, one event at a time, so one bad event holds back only itself.
 */
export type OutboxHandler = (events: readonly DomainEvent[]) => Promise<void>;

/** Options of {@link createOutboxRelay}: the live bus it publishes to, batch size and lease. */
export interface OutboxRelayOptions {
  readonly bus: EventBus;
  readonly batchSize?: number;
  /** How long a claimed event is ours before another relay may retry it (default 30 s). */
  readonly leaseMs?: number;
}

/**
 * Moves committed events from the outbox to their consumers: first the durable handlers, then the live
 * bus, then marks them relayed. Delivery is at least once; if this process dies mid-way, another relay
 * (or this one after a restart) takes the event again when its lease ends.
 */
export interface OutboxRelay {
  /**
   * Relays everything pending now; resolves with how many events went out. Stops at an event a handler
   * refused (it keeps its lease, and is handed out again, alone, when the lease ends).
   */
  flush(): Promise<number>;
  /** Schedules a flush soon; cheap to call after every write. */
  kick(): void;
  /**
   * Also polls every `intervalMs`, to pick up events of crashed relays and other instances; after
   * failures the wait doubles, up to 30 s.
   */
  start(options?: { intervalMs?: number }): void;
  /** Stops polling and waits for the flush in progress. */
  stop(): Promise<void>;
  /** Adds a durable handler; returns a function that removes it. */
  use(handler: OutboxHandler): () => void;
}

/**
 * Creates an {@link OutboxRelay}: a worker loop over the runtime storage's outbox, one batch at a time,
 * on the storage's background connections when it has them (so requests cannot starve it), waiting on
 * the runtime's timers, a span per batch (`switchboard.outbox.relay`) in its telemetry. Call `start` to
 * poll and `kick` after each write; `createSwitchboard` does both.
 *
 * @example
 * const relay = createOutboxRelay(runtime, { bus: createMemoryEventBus() });
 * const domain = createDomain(runtime, { onCommit: () => relay.kick() });
 * relay.start();
 */
export function createOutboxRelay(
  runtime: Pick<Runtime, 'storage' | 'clock' | 'timers' | 'logger' | 'telemetry'>,
  options: OutboxRelayOptions,
): OutboxRelay {
  const { bus } = options;
  const storage = runtime.storage.background ?? runtime.storage;
  const { clock, timers, logger } = runtime;
  const leaseMs = options.leaseMs ?? 30_000;
  const { tracer } = runtime.telemetry;
  const handlers = new Set<OutboxHandler>();

  async function handle(events: readonly DomainEvent[]): Promise<boolean> {
    try {
      for (const handler of handlers) await handler(events);
      return true;
    } catch (error) {
      logger.log('error', 'outbox handler failed; the events will be retried', {
        eventIds: events.map((e) => e.id),
        error: String(error),
      });
      return false;
    }
  }

  /** The events of a claimed batch that every handler took: all at once, else one by one. */
  async function handled(events: readonly DomainEvent[]): Promise<DomainEvent[]> {
    if (handlers.size === 0 || (events.length > 1 && (await handle(events)))) return [...events];
    const done: DomainEvent[] = [];
    for (const event of events) if (await handle([event])) done.push(event);
    return done;
  }

  /**
   * One batch, in a span linked to the trace of each event; an event that came with a trace also gets
   * a span in that trace, so the request's trace shows its event leaving the outbox. Resolves with how
   * many were relayed: the others keep their lease and are handed out again when it ends.
   */
  function relay(events: readonly DomainEvent[]): Promise<number> {
    const traced = events.filter((e) => e.traceparent);
    const links = traced.map((e) => ({
      context: trace.getSpanContext(contextOfTraceparent(e.traceparent))!,
    }));
    const attributes = { 'messaging.batch.message_count': events.length };
    return inSpan(tracer, 'switchboard.outbox.relay', { attributes, links }, async (batch) => {
      const each = traced.map((e) =>
        tracer.startSpan(
          'switchboard.outbox.publish',
          {
            kind: SpanKind.PRODUCER,
            attributes: { 'messaging.message.id': e.id, 'switchboard.event.type': e.type },
            links: [{ context: batch.spanContext() }],
          },
          contextOfTraceparent(e.traceparent),
        ),
      );
      try {
        const relayed = await handled(events);
        // Published together: a bus that stores events (PostgreSQL) writes them in one statement.
        await Promise.all(relayed.map((event) => bus.publish(event)));
        await storage.outbox.markRelayed(relayed.map((e) => e.id));
        return relayed.length;
      } finally {
        for (const span of each) span.end();
      }
    });
  }

  const loop = createWorkerLoop<DomainEvent>({
    name: 'outbox relay',
    // One batch in flight: the events go out in commit order.
    capacity: options.batchSize ?? 100,
    claim: (limit) => storage.outbox.claim({ now: clock.now(), limit, leaseMs }),
    process: relay,
    timers,
    logger,
  });

  // A relay that was never started still relays soon after a kick (a host that only kicks and flushes).
  let kicked = false;
  const drainSoon = (): void => {
    if (kicked) return;
    kicked = true;
    timers.setTimeout(() => {
      kicked = false;
      loop.drain().catch((error) => logger.log('error', 'outbox relay failed', { error: String(error) }));
    }, 0);
  };
  let started = false;

  return {
    flush: () => loop.drain(),
    kick: () => (started ? loop.notify() : drainSoon()),
    start({ intervalMs } = {}) {
      started = true;
      loop.start(intervalMs === undefined ? {} : { idleMs: intervalMs });
    },
    async stop() {
      started = false;
      await loop.stop();
    },
    use(handler) {
      handlers.add(handler);
      return () => {
        handlers.delete(handler);
      };
    },
  };
}

import { type DomainEvent, matchesEventType } from './events.js';
import type { Logger } from './runtime.js';
import { silentLogger } from './runtime.js';

/** Receives the events published on an {@link EventBus}; the built-in buses log what it throws, and go on. */
export type EventListener = (event: DomainEvent) => void | Promise<void>;

/** Options of {@link EventBus.subscribe}: which event types the listener receives. */
export interface SubscribeOptions {
  /** Event type patterns to receive (`order.*`, `message.created`); all events when omitted. */
  readonly types?: readonly string[];
}

/**
 * Live fan-out of committed events to listeners such as GraphQL subscriptions. Best effort by design:
 * durable consumers (webhooks) read the outbox instead. The in-memory bus serves one process; a
 * cross-instance bus (PostgreSQL LISTEN/NOTIFY, Redis) implements the same interface.
 */
export interface EventBus {
  publish(event: DomainEvent): Promise<void>;
  /** Returns a function that ends the subscription. */
  subscribe(listener: EventListener, options?: SubscribeOptions): () => void;
  close?(): Promise<void>;
}

/**
 * An in-process {@link EventBus}. A listener that throws is logged and does not affect the others.
 *
 * @example
 * const bus = createMemoryEventBus();
 * const stop = bus.subscribe((e) => console.log(e.type), { types: ['order.*'] });
 */
export function createMemoryEventBus(options: { logger?: Logger } = {}): EventBus {
  const logger = options.logger ?? silentLogger;
  const listeners = new Set<{ listener: EventListener; types: readonly string[] | undefined }>();
  return {
    async publish(event) {
      const calls = [...listeners]
        .filter(({ types }) => !types || types.some((pattern) => matchesEventType(pattern, event.type)))
        .map(async ({ listener }) => {
          try {
            await listener(event);
          } catch (error) {
            logger.log('error', 'event listener failed', {
              eventId: event.id,
              type: event.type,
              error: String(error),
            });
          }
        });
      await Promise.all(calls);
    },
    subscribe(listener, { types } = {}) {
      const entry = { listener, types };
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
  };
}

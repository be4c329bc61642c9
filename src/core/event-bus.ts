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
 * Receives the messages sent on a topic with {@link EventBus.send}; `null` when some may have been
 * missed (a cross-instance bus lost its connection), so a listener that keeps state should drop it.
 */
export type TopicListener = (message: string | null) => void;

/**
 * Live fan-out of committed events to listeners such as GraphQL subscriptions. Best effort by design:
 * durable consumers (webhooks) read the outbox instead. The in-memory bus serves one process; a
 * cross-instance bus (PostgreSQL LISTEN/NOTIFY, Redis) implements the same interface.
 */
export interface EventBus {
  publish(event: DomainEvent): Promise<void>;
  /** Returns a function that ends the subscription. */
  subscribe(listener: EventListener, options?: SubscribeOptions): () => void;
  /**
   * Sends a short message (at most 2000 characters) on a topic to the listeners of every instance,
   * outside the event stream: the guard's "credentials changed" is one. This instance's listeners have
   * it when the returned promise resolves. Optional: without it, what relies on it (the guard's
   * cache) is off.
   */
  send?(topic: string, message: string): Promise<void>;
  /** Listens to a topic's messages; returns a function that ends the listening. */
  receive?(topic: string, listener: TopicListener): () => void;
  close?(): Promise<void>;
}

/** The longest message {@link EventBus.send} carries: a NOTIFY payload is limited to 8000 bytes. */
export const MAX_TOPIC_MESSAGE_LENGTH = 2000;

/** Refuses a topic or message no bus could carry, with what to change. */
export function checkTopicMessage(topic: string, message: string): void {
  if (!/^[a-z0-9][a-z0-9._-]{0,99}$/.test(topic)) {
    throw new TypeError(`A topic is lower-case letters, digits, ".", "_" and "-" (got "${topic}").`);
  }
  if (message.length > MAX_TOPIC_MESSAGE_LENGTH) {
    throw new TypeError(
      `A topic message is at most ${MAX_TOPIC_MESSAGE_LENGTH} characters (got ${message.length}); send a reference instead.`,
    );
  }
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
  const topics = new Map<string, Set<TopicListener>>();
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
    async send(topic, message) {
      checkTopicMessage(topic, message);
      for (const listener of [...(topics.get(topic) ?? [])]) {
        try {
          listener(message);
        } catch (error) {
          logger.log('error', 'topic listener failed', { topic, error: String(error) });
        }
      }
    },
    receive(topic, listener) {
      // A function may listen twice: each listening is its own, ended by its own function.
      const entry: TopicListener = (message) => listener(message);
      let set = topics.get(topic);
      if (!set) {
        set = new Set();
        topics.set(topic, set);
      }
      set.add(entry);
      return () => {
        set.delete(entry);
        if (set.size === 0 && topics.get(topic) === set) topics.delete(topic);
      };
    },
  };
}

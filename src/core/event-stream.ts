import type { EventBus } from './event-bus.js';
import type { DomainEvent } from './events.js';

export interface EventStreamOptions<T> {
  /** Event type patterns to listen to (`message.created`, `return.*`). */
  readonly types: readonly string[];
  /** What a subscriber gets of an event, or undefined to skip it (another chatbot's message …). */
  readonly pick: (event: DomainEvent) => T | undefined;
  /** Values held for a subscriber that is not reading; one more and it is dropped. */
  readonly maxQueue: number;
  /** Called once when the subscriber is dropped, so the transport can close it. */
  readonly onOverflow?: () => void;
}

/**
 * Events of the bus as an async iterator, each as `pick` makes it. The queue is bounded: a subscriber
 * that falls `maxQueue` values behind is dropped (the iterator ends with an error), so a client that
 * stops reading cannot make the server buffer without limit.
 */
export function eventStream<T>(bus: EventBus, options: EventStreamOptions<T>): AsyncIterableIterator<T> {
  const queue: T[] = [];
  const waiting: ((result: IteratorResult<T>) => void)[] = [];
  let ended = false;
  let overflowed = false;

  const stop = bus.subscribe(
    (event) => {
      if (ended) return;
      const value = options.pick(event);
      if (value === undefined) return;
      const next = waiting.shift();
      if (next) return next({ value, done: false });
      if (queue.length < options.maxQueue) {
        queue.push(value);
        return;
      }
      // Nobody is waiting (the queue is full), so there is no pending `next` to settle.
      overflowed = true;
      queue.length = 0;
      finish();
      options.onOverflow?.();
    },
    { types: options.types },
  );

  function finish(): void {
    if (ended) return;
    ended = true;
    stop();
    for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
  }

  return {
    next(): Promise<IteratorResult<T>> {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (overflowed) return Promise.reject(tooSlow());
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => waiting.push(resolve));
    },
    return(): Promise<IteratorResult<T>> {
      queue.length = 0;
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

function tooSlow(): Error {
  return new Error('The subscriber fell too far behind and was dropped.');
}

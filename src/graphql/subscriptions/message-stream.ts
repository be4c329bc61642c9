import type { EventBus } from '../../core/event-bus.js';
import type { Message } from '../../core/records.js';

export interface MessageStreamOptions {
  readonly chatbotId: string;
  /** Messages held for a subscriber that is not reading; one more and it is dropped. */
  readonly maxQueue: number;
  /** Called once when the subscriber is dropped, so the transport can close it. */
  readonly onOverflow?: () => void;
}

/**
 * New messages of one chatbot as an async iterator, fed by the event bus. The queue is bounded: a
 * subscriber that falls `maxQueue` messages behind is dropped (the iterator ends with an error), so a
 * client that stops reading cannot make the server buffer without limit.
 */
export function messageStream(bus: EventBus, options: MessageStreamOptions): AsyncIterableIterator<Message> {
  const queue: Message[] = [];
  const waiting: ((result: IteratorResult<Message>) => void)[] = [];
  let ended = false;
  let overflowed = false;

  const stop = bus.subscribe(
    (event) => {
      const message = event.data as unknown as Message;
      if (ended || message.chatbotId !== options.chatbotId) return;
      const next = waiting.shift();
      if (next) return next({ value: message, done: false });
      if (queue.length < options.maxQueue) {
        queue.push(message);
        return;
      }
      // Nobody is waiting (the queue is full), so there is no pending `next` to settle.
      overflowed = true;
      queue.length = 0;
      finish();
      options.onOverflow?.();
    },
    { types: ['message.created'] },
  );

  function finish(): void {
    if (ended) return;
    ended = true;
    stop();
    for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
  }

  return {
    next(): Promise<IteratorResult<Message>> {
      const value = queue.shift();
      if (value) return Promise.resolve({ value, done: false });
      if (overflowed) return Promise.reject(tooSlow());
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => waiting.push(resolve));
    },
    return(): Promise<IteratorResult<Message>> {
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

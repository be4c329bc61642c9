/** What every subscriber shares, whatever carries it: the operation, the credentials, the callbacks. */
import { BENCH_KEY } from '../http/fixture.js';

export const CHATBOT_ID = 'bot-1';

export const SUBSCRIPTION = `subscription { onNewMessage(chatbotId: "${CHATBOT_ID}") { content timestamp visitor_id } }`;

export const AUTHORIZATION = `Bearer ${BENCH_KEY}`;

/** What subscribers report; `index` is the subscriber's number, 0 to N − 1. */
export interface SubscriberEvents {
  /** A `next` result arrived carrying a message with this content. */
  next(index: number, content: string): void;
  /** The subscriber stopped (error, completion, connection lost) or got a result without a message. */
  failed(index: number, reason: string): void;
}

/** One WebSocket or event stream, carrying one or more subscribers. */
export interface Connection {
  /** Drops the connection; it reports no failure from then on. */
  close(): void;
}

/** The content of the `onNewMessage` message in a `next` result, if it holds one. */
export function contentOf(result: unknown): string | undefined {
  const data = (result as { data?: { onNewMessage?: { content?: unknown } } } | null)?.data;
  const content = data?.onNewMessage?.content;
  return typeof content === 'string' ? content : undefined;
}

/** Short text for a failure tally, e.g. the start of an error payload. */
export function excerpt(value: unknown, length = 160): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/**
 * The business records chatbots read and change (spec section 2). Times are ISO-8601 UTC strings so a
 * record is the same in memory, in PostgreSQL and on the wire. `version` increases on every change and
 * backs ETags and optimistic concurrency.
 */

/** A customer of the business. A client who can sign in is also a *user* (the OAuth resource owner). */
export interface Client {
  readonly id: string;
  readonly name: string;
  /** Stored trimmed and lower-cased; unique across clients. */
  readonly email: string;
  readonly phone: string | null;
  readonly city: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
}

/** The life of an order. See {@link ORDER_TRANSITIONS} for the allowed moves. */
export type OrderStatus = 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';

/** Every {@link OrderStatus}, from `pending` on; the status enums of the input and REST schemas use it. */
export const ORDER_STATUSES: readonly OrderStatus[] = [
  'pending',
  'paid',
  'shipped',
  'delivered',
  'cancelled',
  'refunded',
];

/** Which status may follow which. `cancelled` and `refunded` are final. */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['paid', 'cancelled'],
  paid: ['shipped', 'refunded'],
  shipped: ['delivered', 'refunded'],
  delivered: ['refunded'],
  cancelled: [],
  refunded: [],
};

/** An order of a client: an amount, a currency and a status that moves along {@link ORDER_TRANSITIONS}. */
export interface Order {
  readonly id: string;
  readonly clientId: string;
  readonly status: OrderStatus;
  /** Exact decimal amount as text, e.g. `"129.90"`, so no float rounding ever touches money. */
  readonly total: string;
  /** ISO 4217 code, e.g. `EUR`. */
  readonly currency: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly version: number;
}

/** One chat message between a visitor and a chatbot. */
export interface Message {
  readonly id: string;
  /** The conversation source; subscribers select messages by it. */
  readonly chatbotId: string;
  readonly visitorId: string;
  readonly content: string;
  readonly timestamp: string;
}

/** A page of records plus the total that matches the filter, for `Link` headers and page counts. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}

import type { OrderStatus } from '../records.js';

/** Offset pagination. Interfaces validate bounds; stores trust them. */
export interface Range {
  readonly offset: number;
  readonly limit: number;
}

/** Which clients to list; the fields given must all match, and an empty filter matches every client. */
export interface ClientFilter {
  readonly city?: string;
  /** Exact match on the normalised (lower-case) e-mail. */
  readonly email?: string;
  /** Case-insensitive substring of the name. */
  readonly nameContains?: string;
}

/** Which orders to list: all of them, or those with one status. */
export interface OrderFilter {
  readonly status?: OrderStatus;
}

/** Which messages to list: those of one chatbot, optionally with one visitor. */
export interface MessageFilter {
  readonly chatbotId: string;
  readonly visitorId?: string;
}

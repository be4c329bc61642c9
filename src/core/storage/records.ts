import type { Client, Message, Order, OrderStatus, Page } from '../records.js';

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

/**
 * Clients, ordered by `createdAt` then `id`. Writes throw a `conflict` SwitchboardError when the e-mail
 * (or id) is already taken. `update` and `delete` are compare-and-set on `version`.
 */
export interface ClientStore {
  get(id: string): Promise<Client | null>;
  list(filter: ClientFilter, range: Range): Promise<Page<Client>>;
  insert(client: Client): Promise<void>;
  /** Replaces the stored client when its version is `expectedVersion`; false when absent or stale. */
  update(client: Client, expectedVersion: number): Promise<boolean>;
  /** Deletes when present (and, if given, at `expectedVersion`); false otherwise. */
  delete(id: string, expectedVersion?: number): Promise<boolean>;
}

/** Which orders to list: all of them, or those with one status. */
export interface OrderFilter {
  readonly status?: OrderStatus;
}

/** Orders, ordered by `createdAt` then `id`. */
export interface OrderStore {
  get(id: string): Promise<Order | null>;
  listByClient(clientId: string, filter: OrderFilter, range: Range): Promise<Page<Order>>;
  /** All orders of many clients in one call: what GraphQL batching needs to avoid N+1 queries. */
  listByClients(clientIds: readonly string[], filter: OrderFilter): Promise<Order[]>;
  insert(order: Order): Promise<void>;
  update(order: Order, expectedVersion: number): Promise<boolean>;
  /** Removes every order of a client (used when the client is deleted); returns how many. */
  deleteByClient(clientId: string): Promise<number>;
}

/** Which messages to list: those of one chatbot, optionally with one visitor. */
export interface MessageFilter {
  readonly chatbotId: string;
  readonly visitorId?: string;
}

/** Chat messages, ordered by `timestamp` then `id` (oldest first, as a conversation reads). */
export interface MessageStore {
  get(id: string): Promise<Message | null>;
  list(filter: MessageFilter, range: Range): Promise<Page<Message>>;
  insert(message: Message): Promise<void>;
}

/**
 * The records every customer-service integration has, declared like a host's own: clients and their
 * orders, conversations (which a bot hands off to a person) and their messages, and bookings. Their
 * record types are derived from the declarations, as a host's are (`RecordOf<typeof returns>`).
 */
import type { RecordOf } from '../../domain/typed-service.js';
import { bookings } from './bookings.js';
import { clients } from './clients.js';
import { conversations } from './conversations.js';
import { messages } from './messages.js';
import { orders } from './orders.js';

export { bookings, clients, conversations, messages, orders };

/** Always served: clients, orders, conversations and messages (which other records refer to). */
export const CORE_RESOURCES = [clients, orders, conversations, messages] as const;

/** Served unless `createSwitchboard({ builtInResources: false })`: bookings. */
export const BUILT_IN_RESOURCES = [bookings] as const;

/** A customer of the business, as the `client` declaration derives it. */
export type Client = RecordOf<typeof clients>;
/** An order of a client; `status` moves along the order's life cycle. */
export type Order = RecordOf<typeof orders>;
/** A conversation between a visitor and a chatbot, which a person may take over. */
export type Conversation = RecordOf<typeof conversations>;
/** One chat message of a conversation, written once (`timestamp`, no `version`). */
export type Message = RecordOf<typeof messages>;
/** A client's appointment for a service. */
export type Booking = RecordOf<typeof bookings>;

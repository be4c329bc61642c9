/**
 * The records every customer-service integration has, declared like a host's own: clients and their
 * orders, conversations (which a bot hands off to a person) and their messages, and bookings.
 */
import { bookings } from './bookings.js';
import { clients } from './clients.js';
import { conversations } from './conversations.js';
import { messages } from './messages.js';
import { orders } from './orders.js';

export { MoneySchema } from './orders.js';
export { bookings, clients, conversations, messages, orders };

/** Always served: clients, orders, conversations and messages (which other records refer to). */
export const CORE_RESOURCES = [clients, orders, conversations, messages] as const;

/** Served unless `createSwitchboard({ builtInResources: false })`: bookings. */
export const BUILT_IN_RESOURCES = [bookings] as const;

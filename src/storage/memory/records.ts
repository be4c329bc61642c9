import { SwitchboardError } from '../../core/errors.js';
import type { Client, Message, Order, Page } from '../../core/records.js';
import type {
  ClientFilter,
  ClientStore,
  MessageFilter,
  MessageStore,
  OrderFilter,
  OrderStore,
  Range,
} from '../../core/storage/index.js';
import { byTimeThenId, inOrder, type Journal, put, remove } from './journal.js';

export interface RecordState {
  readonly clients: Map<string, Client>;
  /** e-mail → client id: the unique index. */
  readonly emails: Map<string, string>;
  readonly orders: Map<string, Order>;
  /** client id → its order ids. */
  readonly ordersByClient: Map<string, Set<string>>;
  readonly messages: Map<string, Message>;
}

export function createRecordState(): RecordState {
  return {
    clients: new Map(),
    emails: new Map(),
    orders: new Map(),
    ordersByClient: new Map(),
    messages: new Map(),
  };
}

const byCreation = byTimeThenId<Client | Order>((r) => r.createdAt);
const byTimestamp = byTimeThenId<Message>((m) => m.timestamp);

function page<T>(items: T[], range: Range): Page<T> {
  return { items: items.slice(range.offset, range.offset + range.limit), total: items.length };
}

function emailTaken(email: string): SwitchboardError {
  return new SwitchboardError('conflict', `A client with the e-mail ${email} already exists.`, {
    details: [
      { field: 'email', code: 'already_exists', message: 'This e-mail is already used by another client.' },
    ],
  });
}

export function memoryClientStore(state: RecordState, journal: Journal): ClientStore {
  return {
    async get(id) {
      return state.clients.get(id) ?? null;
    },
    async list(filter: ClientFilter, range) {
      const needle = filter.nameContains?.toLowerCase();
      const matches = [...state.clients.values()].filter(
        (c) =>
          (filter.city === undefined || c.city === filter.city) &&
          (filter.email === undefined || c.email === filter.email) &&
          (needle === undefined || c.name.toLowerCase().includes(needle)),
      );
      return page(inOrder(matches, byCreation), range);
    },
    async insert(client) {
      if (state.clients.has(client.id))
        throw new SwitchboardError('conflict', `Client ${client.id} already exists.`);
      if (state.emails.has(client.email)) throw emailTaken(client.email);
      put(journal, state.clients, client.id, Object.freeze({ ...client }));
      put(journal, state.emails, client.email, client.id);
    },
    async update(client, expectedVersion) {
      const current = state.clients.get(client.id);
      if (!current || current.version !== expectedVersion) return false;
      if (client.email !== current.email) {
        if (state.emails.has(client.email)) throw emailTaken(client.email);
        remove(journal, state.emails, current.email);
        put(journal, state.emails, client.email, client.id);
      }
      put(journal, state.clients, client.id, Object.freeze({ ...client }));
      return true;
    },
    async delete(id, expectedVersion) {
      const current = state.clients.get(id);
      if (!current || (expectedVersion !== undefined && current.version !== expectedVersion)) return false;
      remove(journal, state.clients, id);
      remove(journal, state.emails, current.email);
      return true;
    },
  };
}

export function memoryOrderStore(state: RecordState, journal: Journal): OrderStore {
  // Appends rather than returns: a list of many clients' orders is built without an array per client.
  const collect = (into: Order[], clientId: string, filter: OrderFilter): Order[] => {
    for (const id of state.ordersByClient.get(clientId) ?? []) {
      const order = state.orders.get(id);
      if (order && (filter.status === undefined || order.status === filter.status)) into.push(order);
    }
    return into;
  };
  return {
    async get(id) {
      return state.orders.get(id) ?? null;
    },
    async listByClient(clientId, filter, range) {
      return page(inOrder(collect([], clientId, filter), byCreation), range);
    },
    async listByClients(clientIds, filter) {
      const orders: Order[] = [];
      for (const id of new Set(clientIds)) collect(orders, id, filter);
      return inOrder(orders, byCreation);
    },
    async insert(order) {
      if (state.orders.has(order.id))
        throw new SwitchboardError('conflict', `Order ${order.id} already exists.`);
      put(journal, state.orders, order.id, Object.freeze({ ...order }));
      const ids = new Set(state.ordersByClient.get(order.clientId));
      ids.add(order.id);
      put(journal, state.ordersByClient, order.clientId, ids);
    },
    async update(order, expectedVersion) {
      const current = state.orders.get(order.id);
      if (!current || current.version !== expectedVersion || current.clientId !== order.clientId)
        return false;
      put(journal, state.orders, order.id, Object.freeze({ ...order }));
      return true;
    },
    async deleteByClient(clientId) {
      const ids = state.ordersByClient.get(clientId) ?? new Set<string>();
      for (const id of ids) remove(journal, state.orders, id);
      remove(journal, state.ordersByClient, clientId);
      return ids.size;
    },
  };
}

export function memoryMessageStore(state: RecordState, journal: Journal): MessageStore {
  return {
    async get(id) {
      return state.messages.get(id) ?? null;
    },
    async list(filter: MessageFilter, range) {
      const matches = [...state.messages.values()].filter(
        (m) =>
          m.chatbotId === filter.chatbotId &&
          (filter.visitorId === undefined || m.visitorId === filter.visitorId),
      );
      return page(inOrder(matches, byTimestamp), range);
    },
    async insert(message) {
      if (state.messages.has(message.id))
        throw new SwitchboardError('conflict', `Message ${message.id} already exists.`);
      put(journal, state.messages, message.id, Object.freeze({ ...message }));
    },
  };
}

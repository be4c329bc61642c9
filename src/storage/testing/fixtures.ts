import type { DomainEvent } from '../../core/events.js';
import type { Client, Message, Order } from '../../core/records.js';
import type { Storage } from '../../core/storage/index.js';

/** Makes a fresh, empty storage for one test; `close` is called after it. */
export type StorageFactory = () => Storage | Promise<Storage>;

let counter = 0;
const next = (): number => ++counter;
/** Distinct, increasing ISO instants so ordering assertions are meaningful. */
export const at = (n: number): string => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();

export function aClient(overrides: Partial<Client> = {}): Client {
  const n = next();
  return {
    id: `cli_contract_${n}`,
    name: `Client ${n}`,
    email: `client${n}@example.com`,
    phone: null,
    city: null,
    createdAt: at(n),
    updatedAt: at(n),
    version: 1,
    ...overrides,
  };
}

export function anOrder(clientId: string, overrides: Partial<Order> = {}): Order {
  const n = next();
  return {
    id: `ord_contract_${n}`,
    clientId,
    status: 'pending',
    total: '10.00',
    currency: 'EUR',
    createdAt: at(n),
    updatedAt: at(n),
    version: 1,
    ...overrides,
  };
}

export function aMessage(overrides: Partial<Message> = {}): Message {
  const n = next();
  return {
    id: `msg_contract_${n}`,
    chatbotId: 'bot-1',
    visitorId: 'visitor-1',
    content: `Hello ${n}`,
    timestamp: at(n),
    ...overrides,
  };
}

export function anEvent(overrides: Partial<DomainEvent> = {}): DomainEvent {
  const n = next();
  return { id: `evt_contract_${n}`, type: 'client.created', occurredAt: at(n), data: { n }, ...overrides };
}

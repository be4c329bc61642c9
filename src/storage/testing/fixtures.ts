import type { DomainEvent } from '../../core/events.js';
import type { Storage } from '../../core/storage/index.js';

/** Makes a fresh, empty storage for one test; `close` is called after it. */
export type StorageFactory = () => Storage | Promise<Storage>;

let counter = 0;
const next = (): number => ++counter;
/** Distinct, increasing instants in epoch ms (every storage time but a business record's). */
export const ms = (n: number): number => Date.UTC(2026, 0, 1) + n * 1000;
/** The same instants as ISO-8601 text, for business records and events (their wire form). */
export const at = (n: number): string => new Date(ms(n)).toISOString();

export function anEvent(overrides: Partial<DomainEvent> = {}): DomainEvent {
  const n = next();
  return { id: `evt_contract_${n}`, type: 'client.created', occurredAt: at(n), data: { n }, ...overrides };
}

import { CORE_RESOURCES } from '../resources/built-ins/index.js';
import type { Resource } from '../resources/define.js';
import { ownerPaths } from '../resources/ownership.js';
import { type InternalService, type ResourceService, resourceService } from '../resources/service.js';
import { type Clock, type IdGenerator, sortableIds, systemClock } from '../runtime.js';
import type { Storage } from '../storage/index.js';
import { type ClientService, clientService } from './clients.js';
import { type MessageService, messageService } from './messages.js';
import { type OrderService, orderService } from './orders.js';

export type { ClientService } from './clients.js';
export type { CreateOptions, WriteOptions } from './context.js';
export type { MessageService } from './messages.js';
export type { OrderService } from './orders.js';

/** The business operations every interface calls: validated, transactional, each publishing its event. */
export interface Domain {
  readonly clients: ClientService;
  readonly orders: OrderService;
  readonly messages: MessageService;
  /** The service of every resource, built-in and declared, by name (`domain.resources.return`). */
  readonly resources: Readonly<Record<string, ResourceService>>;
}

/** Options of {@link createDomain}: the storage, plus the clock and ids (default: system time, sortable). */
export interface DomainOptions {
  readonly storage: Storage;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  /** Called after each committed write; `createSwitchboard` wakes the outbox relay here. */
  readonly onCommit?: () => void;
  /** Resources declared with `defineResource`, served beside the core records (clients, orders, conversations, messages). */
  readonly resources?: readonly Resource[];
}

/**
 * Creates the service of every resource (the core records and those given) over a storage; every write
 * runs with its event in one transaction.
 *
 * @example
 * const domain = createDomain({ storage: createMemoryStorage() });
 * const client = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
 */
export function createDomain(options: DomainOptions): Domain {
  const ctx = {
    storage: options.storage,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? sortableIds,
    onCommit: options.onCommit ?? (() => {}),
  };
  const registry = new Map<string, InternalService>();
  const all = [...CORE_RESOURCES, ...(options.resources ?? [])];
  const owners = ownerPaths(all);
  for (const resource of all) {
    if (registry.has(resource.name)) throw new Error(`Two resources are named "${resource.name}".`);
    registry.set(resource.name, resourceService(ctx, resource, registry, owners.get(resource.name)));
  }
  const resources: Record<string, ResourceService> = Object.fromEntries(registry);
  return {
    clients: clientService(resources.client!),
    orders: orderService(resources.order!, resources.client!),
    messages: messageService(resources.message!),
    resources,
  };
}

import type { Resource } from '../resources/define.js';
import { type ResourceService, resourceService } from '../resources/service.js';
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
  /** The services of the declared resources, by name (`domain.resources.return`). */
  readonly resources: Readonly<Record<string, ResourceService>>;
}

/** Options of {@link createDomain}: the storage, plus the clock and ids (default: system time, sortable). */
export interface DomainOptions {
  readonly storage: Storage;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  /** Called after each committed write; `createSwitchboard` wakes the outbox relay here. */
  readonly onCommit?: () => void;
  /** Resources declared with `defineResource`, served beside the built-in records. */
  readonly resources?: readonly Resource[];
}

/**
 * Creates the domain services (clients, orders, messages) over a storage; every write runs with its event
 * in one transaction.
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
  const resources: Record<string, ResourceService> = {};
  for (const resource of options.resources ?? []) {
    if (resources[resource.name] || ['client', 'order', 'message'].includes(resource.name))
      throw new Error(`Two resources are named "${resource.name}".`);
    resources[resource.name] = resourceService(ctx, resource);
  }
  return {
    clients: clientService(ctx),
    orders: orderService(ctx),
    messages: messageService(ctx),
    resources,
  };
}

import { CORE_RESOURCES, clients, conversations, messages, orders } from '../resources/built-ins/index.js';
import type { Resource } from '../resources/define.js';
import { ownerPaths } from '../resources/ownership.js';
import { type InternalService, type ResourceService, resourceService } from '../resources/service.js';
import type { Runtime } from '../runtime.js';
import { type TypedService, typedService } from './typed-service.js';

export type { CreateOptions, WriteOptions } from './context.js';
export type {
  CreateOf,
  ListQueryOf,
  PatchOf,
  RecordOf,
  ReplaceOf,
  TypedService,
} from './typed-service.js';

/**
 * The business operations every interface calls: validated, transactional, each publishing its event.
 * Every resource has one service with the same methods; the always-served ones have a typed shortcut,
 * and `of(declaration)` types any other (a host's, or bookings) the same way.
 */
export interface Domain {
  readonly clients: TypedService<typeof clients>;
  readonly orders: TypedService<typeof orders>;
  readonly conversations: TypedService<typeof conversations>;
  readonly messages: TypedService<typeof messages>;
  /** The service of every resource, built-in and declared, by name (`domain.resources.return`), untyped. */
  readonly resources: Readonly<Record<string, ResourceService>>;
  /**
   * The service of a served resource, typed from its declaration; throws when the domain does not
   * serve that declaration.
   *
   * @example
   * const returns = domain.of(returnsResource);
   * await returns.create({ clientId, orderId, reason: 'Too small' });
   */
  of<R extends Resource>(resource: R): TypedService<R>;
}

/** Options of {@link createDomain}: the resources it serves and who is told of each commit. */
export interface DomainOptions {
  /** Called after each committed write; `createSwitchboard` wakes the outbox relay here. */
  readonly onCommit?: () => void;
  /** Resources declared with `defineResource`, served beside the core records (clients, orders, conversations, messages). */
  readonly resources?: readonly Resource[];
}

/**
 * Creates the service of every resource (the core records and those given) over the runtime's storage,
 * timed by its clock and named by its ids; every write runs with its event in one transaction.
 *
 * @example
 * const domain = createDomain(createRuntime({ storage: createMemoryStorage() }));
 * const client = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
 */
export function createDomain(
  runtime: Pick<Runtime, 'storage' | 'clock' | 'ids'>,
  options: DomainOptions = {},
): Domain {
  const ctx = {
    storage: runtime.storage,
    clock: runtime.clock,
    ids: runtime.ids,
    onCommit: options.onCommit ?? (() => {}),
  };
  const registry = new Map<string, InternalService>();
  const all = [...CORE_RESOURCES, ...(options.resources ?? [])];
  const owners = ownerPaths(all);
  for (const resource of all) {
    if (registry.has(resource.name)) throw new Error(`Two resources are named "${resource.name}".`);
    // Each API version serves the event feed at `/events` (and GraphQL's `events`).
    if (resource.plural === 'events')
      throw new Error(
        `${resource.name}: the plural "events" is the event feed's; name the records otherwise.`,
      );
    registry.set(resource.name, resourceService(ctx, resource, registry, owners.get(resource.name)));
  }
  const resources: Record<string, ResourceService> = Object.fromEntries(registry);
  const of = <R extends Resource>(resource: R): TypedService<R> => {
    const service = registry.get(resource.name);
    if (!service) throw new Error(`No resource named "${resource.name}" is served.`);
    return typedService(service, resource);
  };
  return {
    clients: of(clients),
    orders: of(orders),
    conversations: of(conversations),
    messages: of(messages),
    resources,
    of,
  };
}

/**
 * Switchboard: the integration interface customer-service chatbots talk to, as Web-standard building
 * blocks. This entry point has `createSwitchboard`, which assembles every block into one
 * `fetch(request) => Response` handler, `defineResource` and the built-in declarations (their schemas
 * and record types derive from them), and the domain core. Each block is also a subpath export.
 *
 * @example
 * import { createSwitchboard } from 'switchboard-kit';
 * const switchboard = createSwitchboard(); // in-memory storage
 * const client = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
 * const response = await switchboard.fetch(new Request('http://localhost/healthz'));
 *
 * @packageDocumentation
 */

export {
  type Authenticate,
  type Principal,
  requireScope,
  type Scope,
  type ScopeCatalogue,
  trustEveryone,
} from './core/auth.js';
export {
  type CreateOf,
  type CreateOptions,
  createDomain,
  type Domain,
  type DomainOptions,
  type ListQueryOf,
  type PatchOf,
  type RecordOf,
  type ReplaceOf,
  type TypedService,
  type WriteOptions,
} from './core/domain/index.js';
export { type ErrorCode, type FieldError, isSwitchboardError, SwitchboardError } from './core/errors.js';
export {
  createMemoryEventBus,
  type EventBus,
  type EventListener,
  type SubscribeOptions,
  type TopicListener,
} from './core/event-bus.js';
export type { EventFeedConfig } from './core/event-feed/index.js';
export { type DomainEvent, matchesEventType } from './core/events.js';
export {
  createOutboxRelay,
  type OutboxHandler,
  type OutboxRelay,
  type OutboxRelayOptions,
} from './core/outbox-relay.js';
export {
  type Booking,
  BUILT_IN_RESOURCES,
  bookings,
  type Client,
  CORE_RESOURCES,
  type Conversation,
  clients,
  conversations,
  type Message,
  messages,
  type Order,
  orders,
} from './core/resources/built-ins/index.js';
export { defineResource, type Resource } from './core/resources/define.js';
export type {
  LifecycleInput,
  Related,
  ResourceCheck,
  ResourceGraphQLNames,
  ResourceInput,
  ResourceVersion,
  ScopesInput,
} from './core/resources/input.js';
export { scopeCatalogue } from './core/resources/scopes.js';
export type { ResourceListQuery, ResourceService } from './core/resources/service.js';
export {
  type Clock,
  createRuntime,
  type IdGenerator,
  jsonLogger,
  type Logger,
  type LogLevel,
  type Runtime,
  type RuntimeOptions,
  randomIds,
  silentLogger,
  sortableIds,
  systemClock,
  type Timers,
} from './core/runtime.js';
export type * from './core/storage/index.js';
export {
  createTelemetry,
  type Telemetry,
  type TelemetryOptions,
  tracedStorage,
} from './core/telemetry/index.js';
export { validate } from './core/validation.js';
export type { ConnectionInfo } from './http/request-context.js';
export { type InstrumentOptions, instrumentFetch } from './http/request-telemetry.js';
export type { LookOptions } from './internal/look/options.js';
export {
  createSwitchboard,
  type FetchHandler,
  type Switchboard,
  type SwitchboardOptions,
} from './switchboard/switchboard.js';

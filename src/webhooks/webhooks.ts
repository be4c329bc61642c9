import type { Authenticate } from '../core/auth.js';
import type { OutboxHandler } from '../core/outbox-relay.js';
import type { Resource } from '../core/resources/define.js';
import {
  type Clock,
  type IdGenerator,
  type Logger,
  silentLogger,
  sortableIds,
  systemClock,
} from '../core/runtime.js';
import type { Storage } from '../core/storage/index.js';
import type { RestHandler } from '../http/route-handler.js';
import { createWebhookAdminHandler } from './admin-handler.js';
import { createWebhookAdmin, type WebhookAdmin } from './admin-service.js';
import { createWebhookDispatcher, type WebhookDispatcher } from './dispatcher.js';
import type { WebhookDispatcherOptions } from './dispatcher-options.js';
import { createWebhookFanOut } from './fan-out.js';

/**
 * Options of {@link createWebhooks}: the dispatcher options plus the storage, `authenticate` for the admin
 * routes, and their base path.
 */
export interface WebhooksOptions
  extends Omit<WebhookDispatcherOptions, 'storage' | 'clock' | 'ids' | 'logger' | 'onCommit'> {
  readonly storage: Storage;
  readonly authenticate: Authenticate;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly logger?: Logger;
  /** Where the admin routes live (default `/api/v1`). */
  readonly basePath?: string;
  /** How long a rotated-out secret keeps signing (default 24 h). */
  readonly rotationOverlapMs?: number;
  /** Called after the webhook module committed an event of its own, e.g. to wake the outbox relay. */
  readonly onCommit?: () => void;
  /** Event types beside the built-in ones, for the catalogue (declared resources' events). */
  readonly eventTypes?: readonly string[];
  /**
   * The resources whose declarations give the catalogue's examples and each API version's record
   * shapes in deliveries (default: the built-in ones).
   */
  readonly resources?: readonly Resource[];
}

/** The sender side, assembled: admin service and routes, fan-out handler, dispatcher. */
export interface Webhooks {
  readonly admin: WebhookAdmin;
  /** Register on the outbox relay: `relay.use(webhooks.fanOut)`. */
  readonly fanOut: OutboxHandler;
  readonly dispatcher: WebhookDispatcher;
  /** The admin routes; mount it on {@link Webhooks.prefixes}. */
  readonly fetch: RestHandler;
  /** Path prefixes the admin routes answer on, e.g. `/api/v1/webhook-endpoints`. */
  readonly prefixes: readonly string[];
}

/**
 * Everything the sender side needs, sharing one storage, clock and id generator.
 *
 * @example
 * const webhooks = createWebhooks({ storage, authenticate, outbound: { resolveHost } });
 * relay.use(webhooks.fanOut);
 * webhooks.dispatcher.start();
 */
export function createWebhooks(options: WebhooksOptions): Webhooks {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? sortableIds;
  const logger = options.logger ?? silentLogger;
  const basePath = (options.basePath ?? '/api/v1').replace(/\/+$/, '');
  const outbound = options.outbound ?? {};
  if (!outbound.allowPrivateAddresses && !outbound.resolveHost) {
    logger.log(
      'warn',
      'webhooks: no resolveHost configured, so only receiver URLs with a public IP literal can be sent to',
      {
        hint: 'pass outbound.resolveHost (switchboard-kit/node exports resolveHost)',
      },
    );
  }
  // Fan-out and delivery are background work: on the storage's own connections when it has them.
  const background = options.storage.background ?? options.storage;
  const dispatcher = createWebhookDispatcher({
    ...options,
    storage: background,
    clock,
    ids,
    logger,
    outbound,
  });
  const admin = createWebhookAdmin({
    storage: options.storage,
    clock,
    ids,
    outbound,
    rotationOverlapMs: options.rotationOverlapMs,
    onRequeue: () => dispatcher.kick(),
    ...(options.eventTypes ? { eventTypes: options.eventTypes } : {}),
    ...(options.resources ? { resources: options.resources } : {}),
  });
  return {
    admin,
    dispatcher,
    fanOut: createWebhookFanOut({
      storage: background,
      ...(options.resources ? { resources: options.resources } : {}),
      clock,
      ids,
      onDeliveries: () => dispatcher.kick(),
    }),
    fetch: createWebhookAdminHandler(
      { storage: options.storage, clock, logger },
      { admin, authenticate: options.authenticate, basePath },
    ),
    prefixes: [`${basePath}/webhook-endpoints`, `${basePath}/webhook-event-types`],
  };
}

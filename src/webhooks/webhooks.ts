import type { Authenticate } from '../core/auth.js';
import type { OutboxHandler } from '../core/outbox-relay.js';
import type { Resource } from '../core/resources/define.js';
import type { RateLimiter } from '../http/rate-limit.js';
import { createRouteHandler, type RestHandler } from '../http/route-handler.js';
import { createWebhookAdminHandler } from './admin-handler.js';
import { createWebhookAdmin, type WebhookAdmin } from './admin-service.js';
import { createWebhookDispatcher, type WebhookDispatcher } from './dispatcher.js';
import type { WebhookDispatcherConfig, WebhookDispatcherRuntime } from './dispatcher-options.js';
import { createWebhookFanOut } from './fan-out.js';
import { webhookKeySetRoutes } from './signing-key-routes.js';
import { createWebhookKeyRing, type WebhookKeyRing } from './signing-keys.js';

/**
 * Settings of the webhooks block, what `createSwitchboard`'s `webhooks` takes: the dispatcher's, the
 * admin routes' base path, the secret rotation overlap and the catalogue's own event types.
 */
export interface WebhooksConfig extends WebhookDispatcherConfig {
  /** Where the admin routes live (default `/api/v1`). */
  readonly basePath?: string;
  /** How long a rotated-out secret keeps signing (default 24 h). */
  readonly rotationOverlapMs?: number;
  /** Event types beside the built-in ones, for the catalogue (declared resources' events). */
  readonly eventTypes?: readonly string[];
}

/** Options of {@link createWebhooks}: its settings, `authenticate` for the admin routes, the resources. */
export interface WebhooksOptions extends WebhooksConfig {
  readonly authenticate: Authenticate;
  /** Called after the webhook module committed an event of its own, e.g. to wake the outbox relay. */
  readonly onCommit?: () => void;
  /**
   * The resources whose declarations give the catalogue's examples and each API version's record
   * shapes in deliveries (default: the built-in ones).
   */
  readonly resources?: readonly Resource[];
  /** Budgets per caller for the public key set (`/.well-known/webhook-keys`); none when omitted. */
  readonly rateLimit?: RateLimiter;
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
  /** The deployment's Ed25519 signing keys, shared by the admin and the dispatcher. */
  readonly keyRing: WebhookKeyRing;
  /** `GET /.well-known/webhook-keys`, the public keys as a JWK set; mount it on {@link WEBHOOK_KEYS_PATH}. */
  readonly keys: RestHandler;
}

/**
 * Everything the sender side needs, over one runtime (its storage, clock, ids, logger, telemetry and
 * outbound fetch); fan-out and delivery run on the storage's background connections when it has them.
 *
 * @example
 * const webhooks = createWebhooks(runtime, { authenticate, outbound: { resolveHost } });
 * relay.use(webhooks.fanOut);
 * webhooks.dispatcher.start();
 */
export function createWebhooks(runtime: WebhookDispatcherRuntime, options: WebhooksOptions): Webhooks {
  const { logger } = runtime;
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
  const { authenticate, onCommit, resources, eventTypes, rotationOverlapMs, rateLimit, ...dispatching } =
    options;
  // One ring: the instance that rotates signs with the new key at once.
  const keyRing = createWebhookKeyRing(runtime, rotationOverlapMs === undefined ? {} : { rotationOverlapMs });
  const dispatcher = createWebhookDispatcher(runtime, {
    ...dispatching,
    keyRing,
    outbound,
    ...(onCommit ? { onCommit } : {}),
  });
  const admin = createWebhookAdmin(runtime, {
    outbound,
    rotationOverlapMs,
    keyRing,
    onRequeue: () => dispatcher.kick(),
    ...(onCommit ? { onCommit } : {}),
    ...(eventTypes ? { eventTypes } : {}),
    ...(resources ? { resources } : {}),
  });
  return {
    admin,
    dispatcher,
    fanOut: createWebhookFanOut(runtime, {
      ...(resources ? { resources } : {}),
      onDeliveries: () => dispatcher.kick(),
    }),
    fetch: createWebhookAdminHandler(runtime, { admin, authenticate, basePath }),
    prefixes: [
      `${basePath}/webhook-endpoints`,
      `${basePath}/webhook-event-types`,
      `${basePath}/webhook-signing-keys`,
    ],
    keyRing,
    keys: createRouteHandler(runtime, {
      routes: webhookKeySetRoutes(keyRing),
      authenticate,
      basePath: '/.well-known',
      info: { title: 'Switchboard webhook keys', version: '1' },
      ...(rateLimit ? { rateLimit } : {}),
    }),
  };
}

/**
 * Signed webhooks, both sides. The sender: endpoint registry with admin routes, a durable fan-out from
 * the outbox, and a retry dispatcher whose schedule lives in storage. The receiver: a verifier and an
 * idempotent fetch handler. Web Crypto only, so both run on Node, Deno, Bun and edge runtimes.
 *
 * @example
 * import { createWebhookReceiver } from 'switchboard-kit/webhooks';
 * const receive = createWebhookReceiver({
 *   secrets: [secret],
 *   idempotency: storage.idempotency,
 *   onEvent: async (event) => console.log(event.type, event.id),
 * });
 *
 * @packageDocumentation
 */

export { checkReceiverUrl, type OutboundPolicy, type ResolveHost } from '../http/outbound.js';
export { isPublicAddress } from '../http/public-address.js';
export { createWebhookAdminHandler, type WebhookAdminHandlerOptions } from './admin-handler.js';
export { webhookAdminRoutes } from './admin-routes.js';
// Administration
export {
  createWebhookAdmin,
  type WebhookAdmin,
  type WebhookAdminOptions,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  type WebhookHeldSubject,
} from './admin-service.js';
export {
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookEndpointHealthSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
  WebhookEventTypesSchema,
  WebhookHeldSubjectSchema,
  WebhookKeySetSchema,
  WebhookSigningKeyListSchema,
  WebhookSigningKeySchema,
} from './admin-wire.js';
export { MASKED_HEADER_VALUE } from './custom-headers.js';
export { createWebhookDispatcher, type WebhookDispatcher } from './dispatcher.js';
export type {
  WebhookDispatcherConfig,
  WebhookDispatcherOptions,
  WebhookDispatcherRuntime,
} from './dispatcher-options.js';
export type { Ed25519PrivateJwk, Ed25519PublicJwk } from './ed25519.js';
export type { WebhookEndpointHealth, WebhookFailure } from './endpoint-health.js';
export { createWebhookFanOut, type WebhookFanOutOptions } from './fan-out.js';
export { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT, webhookPayload } from './payload.js';
// Receiver
export {
  createWebhookReceiver,
  type ReceiveContext,
  type ReceivedWebhook,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from './receiver.js';
export {
  DEFAULT_RETRY_DELAYS_MS,
  type RetrySchedule,
  type RetryScheduleOptions,
  retrySchedule,
} from './schedule.js';
export { WEBHOOK_ADMIN_SCOPES } from './scopes.js';
// Signing and verifying
export { generateWebhookSecret } from './secret.js';
export { type SignatureScheme, type SignedContent, type SignOptions, signWebhook } from './sign.js';
export { WEBHOOK_KEYS_PATH } from './signing-key-routes.js';
export {
  createWebhookKeyRing,
  type WebhookKeyRing,
  type WebhookKeyRingOptions,
  type WebhookPublicJwk,
  type WebhookSigningKey,
} from './signing-keys.js';
export {
  type VerifyFailureReason,
  type VerifyOptions,
  type VerifyResult,
  verifyWebhook,
  type WebhookPublicKey,
} from './verify.js';
// Sender
export { createWebhooks, type Webhooks, type WebhooksConfig, type WebhooksOptions } from './webhooks.js';

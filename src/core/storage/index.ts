import type { ApiKeyStore } from './api-keys.js';
import type { ConsoleSessionStore } from './console-sessions.js';
import type { IdempotencyStore } from './idempotency.js';
import type { OAuthStores } from './oauth.js';
import type { OutboxStore } from './outbox.js';
import type { RateLimitStore } from './rate-limits.js';
import type { ResourceStore } from './resources.js';
import type { WebhookStores } from './webhooks.js';

export type { ApiKeyRecord, ApiKeyStore } from './api-keys.js';
export type { ConsoleSessionRecord, ConsoleSessionStore } from './console-sessions.js';
export type { Erasure } from './erasure.js';
export type { IdempotencyClaim, IdempotencyClaimOptions, IdempotencyStore } from './idempotency.js';
export type {
  AccessTokenRecord,
  AccessTokenStore,
  AuthorizationCodeRecord,
  AuthorizationCodeStore,
  CodeConsumption,
  GrantFilter,
  GrantRecord,
  GrantStore,
  GrantWidening,
  OAuthClientRecord,
  OAuthClientStore,
  OAuthGrantType,
  OAuthStores,
  RefreshTokenRecord,
  RefreshTokenStore,
  RefreshTokenUse,
  TokenEndpointAuthMethod,
} from './oauth.js';
export type { ClaimOptions, FeedEvent, FeedRead, FeedReadOptions, OutboxStore } from './outbox.js';
export type { Page, Range } from './page.js';
export type { RateDecision, RateLimitStore, RateRule } from './rate-limits.js';
export type {
  ResourceLayout,
  ResourceMatch,
  ResourceQuery,
  ResourceRecord,
  ResourceStore,
} from './resources.js';
export type {
  WebhookSigningKeyActivation,
  WebhookSigningKeyRecord,
  WebhookSigningKeyStore,
} from './webhook-signing-keys.js';
export type {
  WebhookAttemptOutcome,
  WebhookAttemptRecord,
  WebhookAttemptStore,
  WebhookClaimOptions,
  WebhookDeliveryFilter,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookDeliveryStore,
  WebhookEndpointActivity,
  WebhookEndpointDisabledReason,
  WebhookEndpointRecord,
  WebhookEndpointStore,
  WebhookFinish,
  WebhookHeldSubjectRecord,
  WebhookOrdering,
  WebhookPayloadMode,
  WebhookSecretRecord,
  WebhookSignature,
  WebhookStores,
} from './webhooks.js';

/** Every store the system needs. All methods are async so any database can stand behind them. */
export interface Stores {
  readonly outbox: OutboxStore;
  readonly idempotency: IdempotencyStore;
  readonly apiKeys: ApiKeyStore;
  readonly oauth: OAuthStores;
  readonly webhooks: WebhookStores;
  /** The business records: every resource declared with `defineResource`, the built-in ones too. */
  readonly resources: ResourceStore;
  /** Request budgets (rate limits), shared by every instance on this storage. */
  readonly rateLimits: RateLimitStore;
  /** Who is signed in to the operator console, so a sign-out ends the session on every instance. */
  readonly consoleSessions: ConsoleSessionStore;
}

/**
 * A storage adapter: the stores, plus transactions and lifecycle. The in-memory adapter is the
 * reference; `switchboard-kit/storage/testing` is the contract every adapter must pass.
 */
export interface Storage extends Stores {
  /**
   * Runs `work` atomically: either every write inside it lands, or none does. Domain writes and their
   * outbox events go through here. Work must use the `tx` stores, not the outer ones.
   */
  transaction<T>(work: (tx: Stores) => Promise<T>): Promise<T>;
  /** Resolves when the storage can serve requests; rejects otherwise (for `/readyz`). */
  ping(): Promise<void>;
  /**
   * Deletes what has expired (idempotency keys, used codes, old tokens, console sessions). Optional:
   * an adapter that cleans up as it goes leaves it out. `createSwitchboard` calls it periodically.
   */
  sweep?(options: { readonly now: number }): Promise<unknown>;
  /**
   * The same data on connections of its own, for background work (the outbox relay, the webhook fan-out
   * and dispatcher), so that request traffic cannot starve it. Optional: without it, background work
   * uses this storage. Closed with it.
   */
  readonly background?: Storage;
  close(): Promise<void>;
}

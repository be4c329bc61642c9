/**
 * Webhook endpoints, deliveries (claimed with a lease) and their attempts. Plain rows and
 * compare-and-set, so a SQL adapter maps each method to one statement: `claimDue` is
 * `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING *`, `createIfAbsent` is
 * `INSERT … ON CONFLICT (event_id, endpoint_id) DO NOTHING`. Times are epoch milliseconds, like every
 * time in the storage port but a business record's; the admin routes send them as ISO-8601 text.
 */
import type { Page, Range } from './page.js';

/**
 * A signing secret. Stored as given: HMAC signing needs the secret itself, so it cannot be hashed like
 * a password; an adapter may encrypt the column at rest.
 */
export interface WebhookSecretRecord {
  readonly secret: string;
  readonly createdAt: number;
  /** When a rotated-out secret stops being used; null for the current one. */
  readonly expiresAt: number | null;
}

/**
 * Why an endpoint was disabled: by an admin (`manual`), because it answered 410 Gone (`gone`), or because it
 * kept failing for too long (`failing`).
 */
export type WebhookEndpointDisabledReason = 'manual' | 'gone' | 'failing';

/** A receiver URL that subscribes to event types, with its signing secrets and health. */
export interface WebhookEndpointRecord {
  readonly id: string;
  readonly url: string;
  readonly description: string;
  /** Event type patterns: exact (`order.created`), resource wildcard (`order.*`) or `*`. */
  readonly eventTypes: readonly string[];
  /** Newest first. Senders sign with every secret not yet expired. */
  readonly secrets: readonly WebhookSecretRecord[];
  readonly scheme: 'switchboard' | 'standard';
  /**
   * The API version whose record shapes its deliveries carry (the `/api/v{n}` it was registered on,
   * like Stripe's pinned `api_version`); endpoints made before versions were pinned have 1.
   */
  readonly apiVersion: number;
  readonly enabled: boolean;
  /** Why a disabled endpoint is disabled; null while enabled. */
  readonly disabledReason: WebhookEndpointDisabledReason | null;
  /** Start of the current run of failed attempts; null after a success. */
  readonly failingSince: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly version: number;
}

/** Endpoints, ordered by `createdAt` then `id`. */
export interface WebhookEndpointStore {
  get(id: string): Promise<WebhookEndpointRecord | null>;
  list(range: Range): Promise<Page<WebhookEndpointRecord>>;
  /** Every enabled endpoint: what the fan-out matches each event against. */
  listEnabled(): Promise<WebhookEndpointRecord[]>;
  /** Throws a `conflict` SwitchboardError when the id exists. */
  insert(endpoint: WebhookEndpointRecord): Promise<void>;
  /** Replaces the endpoint when its version is `expectedVersion`; false when absent or stale. */
  update(endpoint: WebhookEndpointRecord, expectedVersion: number): Promise<boolean>;
  /** Deletes the endpoint with its deliveries and attempts; false when absent. */
  delete(id: string): Promise<boolean>;
  /**
   * Notes the outcome of an attempt without a read-modify-write: a success clears `failingSince`, a
   * failure sets it unless already set. Returns the endpoint after the change (null when absent).
   */
  recordOutcome(
    id: string,
    outcome: { readonly ok: boolean; readonly at: number },
  ): Promise<WebhookEndpointRecord | null>;
  /** Disables an enabled endpoint; true only for the one call that changed it (so one event says so). */
  disable(id: string, reason: WebhookEndpointDisabledReason, at: number): Promise<boolean>;
}

/** `pending` includes deliveries in flight; `dead` is the dead letter, kept for inspection and re-send. */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'dead';

/** One event on its way to one endpoint: the body to send, its retry state and its lease. */
export interface WebhookDeliveryRecord {
  readonly id: string;
  readonly endpointId: string;
  readonly eventId: string;
  readonly eventType: string;
  /** The exact body sent on every attempt. */
  readonly payload: string;
  readonly status: WebhookDeliveryStatus;
  /** Attempts made so far. */
  readonly attempts: number;
  /** When the next attempt is due; null once succeeded or dead. */
  readonly nextAttemptAt: number | null;
  /** The worker holding the delivery and until when; both null when unclaimed. */
  readonly leasedBy: string | null;
  readonly leaseUntil: number | null;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** The `traceparent` of the event's trace, sent on so the receiver joins it; absent without tracing. */
  readonly traceparent?: string | null;
}

/** Which deliveries to list or re-queue; the fields given must all match. */
export interface WebhookDeliveryFilter {
  readonly endpointId?: string;
  readonly status?: WebhookDeliveryStatus;
  /** Exactly this event type, e.g. `order.paid` (no wildcards). */
  readonly eventType?: string;
  /** The event it carries (a search by event id). */
  readonly eventId?: string;
  /** Inclusive lower and exclusive upper bound on `createdAt`. */
  readonly createdFrom?: number;
  readonly createdBefore?: number;
}

/**
 * Options of {@link WebhookDeliveryStore.claimDue}: the time, how many to lease, for how long, by which
 * worker, and per-endpoint caps.
 */
export interface WebhookClaimOptions {
  /** Epoch milliseconds. */
  readonly now: number;
  readonly limit: number;
  readonly leaseMs: number;
  readonly workerId: string;
  /**
   * At most this many deliveries of one endpoint may be leased at once, counting live leases of every
   * worker: one slow receiver cannot take every slot.
   */
  readonly maxPerEndpoint: number;
  /** Caps that replace `maxPerEndpoint` for some endpoints, e.g. a dispatcher's adaptive limits. */
  readonly endpointLimits?: ReadonlyMap<string, number>;
}

/** One outcome for `finishMany`: the delivery, the lease it was claimed with, and how it ended. */
export interface WebhookFinish {
  readonly id: string;
  readonly lease: { readonly workerId: string; readonly attempts: number };
  readonly outcome: WebhookAttemptOutcome;
}

/** How an attempt ended, written only by the worker still holding the lease. */
export interface WebhookAttemptOutcome {
  readonly status: WebhookDeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt: number | null;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly at: number;
}

/** Deliveries, listed newest first (`createdAt` desc, then `id` desc). */
export interface WebhookDeliveryStore {
  /** Inserts unless a delivery for (`eventId`, `endpointId`) exists; true when inserted. */
  createIfAbsent(delivery: WebhookDeliveryRecord): Promise<boolean>;
  /**
   * The same for many deliveries in one write (one event fanned out to every endpoint); returns how many
   * were inserted. A delivery whose id exists for another (`eventId`, `endpointId`) is a `conflict`.
   */
  createManyIfAbsent(deliveries: readonly WebhookDeliveryRecord[]): Promise<number>;
  get(id: string): Promise<WebhookDeliveryRecord | null>;
  /** How many deliveries are pending (in flight included): the queue an operator watches. */
  countPending(): Promise<number>;
  list(filter: WebhookDeliveryFilter, range: Range): Promise<Page<WebhookDeliveryRecord>>;
  /**
   * Atomically leases up to `limit` pending deliveries whose `nextAttemptAt` has come and whose lease
   * (if any) has ended, oldest due first. Concurrent callers never receive the same delivery.
   */
  claimDue(options: WebhookClaimOptions): Promise<WebhookDeliveryRecord[]>;
  /**
   * Records the outcome and ends the lease, if `workerId` still holds it with `attempts` unchanged
   * (compare-and-set); false when the lease was lost to another worker.
   */
  finish(
    id: string,
    lease: { readonly workerId: string; readonly attempts: number },
    outcome: WebhookAttemptOutcome,
  ): Promise<boolean>;
  /**
   * `finish` for many deliveries in one write (a worker's outcomes of one moment); returns the ids
   * whose lease was still held, which are the ones written.
   */
  finishMany(finishes: readonly WebhookFinish[]): Promise<string[]>;
  /**
   * The outcomes of a moment in which no attempt failed, as one atomic write (on SQL one statement, no
   * transaction): `finishMany(finishes)`, then the `attempts` of the deliveries it wrote inserted in the
   * order given (the others' left out), then each of their endpoints' failing run ended, as
   * `recordOutcome` with `ok` does. Returns the ids written. A failed attempt in `attempts` is refused
   * with an Error and nothing is written: a failure may disable its endpoint, which takes a transaction.
   */
  finishSucceeded(
    finishes: readonly WebhookFinish[],
    attempts: readonly WebhookAttemptRecord[],
  ): Promise<string[]>;
  /** Ends a lease without an attempt (a worker shutting down); the delivery is due again at once. */
  release(id: string, workerId: string): Promise<boolean>;
  /**
   * Puts finished deliveries back in the queue with a fresh schedule (attempts 0, due at `now`).
   * Deliveries already pending are left alone. Returns how many were re-queued.
   */
  requeue(filter: WebhookDeliveryFilter & { readonly ids?: readonly string[] }, now: number): Promise<number>;
  /**
   * Makes pending deliveries that failed at least once (`attempts` ≥ 1) and are not leased due at `now`,
   * their schedule kept (an operator's "retry now"). Returns how many.
   */
  expedite(
    filter: WebhookDeliveryFilter & { readonly ids?: readonly string[] },
    now: number,
  ): Promise<number>;
  /**
   * Deletes finished (succeeded or dead) deliveries last updated before `before`, with their
   * attempts, so the delivery log stays bounded; pending ones are never touched. Returns how many.
   */
  prune(before: number): Promise<number>;
}

/** One HTTP attempt at a delivery and how it ended, kept for the delivery log. */
export interface WebhookAttemptRecord {
  readonly id: string;
  readonly deliveryId: string;
  readonly endpointId: string;
  /** 1 for the first attempt of the delivery's schedule; a re-send starts a new schedule at 1. */
  readonly number: number;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly statusCode: number | null;
  /** The first KB of the response body, as text. */
  readonly responseExcerpt: string | null;
  /** Network error, timeout, refused address… null when the receiver answered. */
  readonly error: string | null;
  readonly succeeded: boolean;
  /**
   * The headers the sender set on this attempt (content type, user agent, event id, timestamp,
   * signatures), lower-case names in the order sent; the HTTP client adds `host` and `content-length`.
   * Null when nothing was sent (a refused address) or for attempts recorded before they were kept.
   */
  readonly requestHeaders: Readonly<Record<string, string>> | null;
  /**
   * The receiver's response headers, lower-case names as received, at most 30 and 4 KiB; null when it
   * did not answer or for attempts recorded before they were kept.
   */
  readonly responseHeaders: Readonly<Record<string, string>> | null;
}

/** Attempts of a delivery, oldest first. */
export interface WebhookAttemptStore {
  insert(attempt: WebhookAttemptRecord): Promise<void>;
  /** The same for many attempts in one write, kept in the order given. */
  insertMany(attempts: readonly WebhookAttemptRecord[]): Promise<void>;
  listByDelivery(deliveryId: string): Promise<WebhookAttemptRecord[]>;
  /**
   * The endpoint's latest failed attempts, at most `limit`, newest first (by `startedAt`, then the last
   * recorded first): what an endpoint's health shows without reading every delivery's attempts.
   */
  listFailures(endpointId: string, limit: number): Promise<WebhookAttemptRecord[]>;
  /**
   * Each endpoint's attempts started since `since`, counted per hour (`hour` 0 is [`since`,
   * `since` + 1 h)), and its latest attempt ever: an endpoint's health, for many endpoints in one read.
   */
  activity(endpointIds: readonly string[], since: number): Promise<WebhookEndpointActivity[]>;
}

/** What {@link WebhookAttemptStore.activity} says of one endpoint. */
export interface WebhookEndpointActivity {
  readonly endpointId: string;
  /** Hours with at least one attempt, in order. */
  readonly hours: readonly { readonly hour: number; readonly succeeded: number; readonly failed: number }[];
  /** Its latest attempt (by `startedAt`, then the last recorded), whenever it was; null for none. */
  readonly latest: WebhookAttemptRecord | null;
}

/** Every webhook store: endpoints, deliveries and their attempts. */
export interface WebhookStores {
  readonly endpoints: WebhookEndpointStore;
  readonly deliveries: WebhookDeliveryStore;
  readonly attempts: WebhookAttemptStore;
}

/**
 * How long an adapter's `sweep` keeps finished webhook deliveries (viewable, re-sendable by time range)
 * unless told otherwise: 30 days, far beyond the retry horizon of about 32 hours.
 */
export const DEFAULT_DELIVERY_RETENTION_MS = 30 * 86_400_000;

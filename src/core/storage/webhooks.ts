/**
 * Webhook endpoints, deliveries (claimed with a lease) and their attempts. Plain rows and
 * compare-and-set, so a SQL adapter maps each method to one statement: `claimDue` is
 * `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING *`, `createIfAbsent` is
 * `INSERT … ON CONFLICT (event_id, endpoint_id) DO NOTHING`. Times are epoch milliseconds, like every
 * time in the storage port but a business record's; the admin routes send them as ISO-8601 text.
 */
import type { Erasure } from './erasure.js';
import type { Page, Range } from './page.js';
import type { WebhookSigningKeyStore } from './webhook-signing-keys.js';

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

/**
 * An endpoint's signature: HMAC-SHA256 with its shared secrets, or Ed25519 with the deployment's key
 * pairs, verified with the public keys of `/.well-known/webhook-keys`.
 */
export type WebhookSignature = 'hmac' | 'ed25519';

/** How an endpoint's deliveries are ordered: per subject, or not at all (the default). */
export type WebhookOrdering = 'none' | 'subject';

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
   * How deliveries are signed: `hmac` (absent means it too) with the endpoint's secrets, or `ed25519`
   * with the deployment's signing keys, as Standard Webhooks `v1a` (the scheme is then `standard`).
   */
  readonly signature?: WebhookSignature;
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
  /**
   * How many days the sweep keeps this endpoint's finished deliveries ({@link LOG_RETENTION_DAYS}
   * bounds it); null or absent: the adapter's retention (by default {@link DEFAULT_DELIVERY_RETENTION_MS}).
   */
  readonly logRetentionDays?: number | null;
  /**
   * Delays in ms before each retry, replacing the dispatcher's schedule for this endpoint (`[100, 200]`:
   * a retry 100 ms after the first failure, another 200 ms after the second, then dead); absent: the
   * dispatcher's. Bounds: {@link RETRY_SCHEDULE_BOUNDS}.
   */
  readonly retrySchedule?: readonly number[];
  /**
   * Request headers sent on every delivery, lower-case names; absent: none. Stored as given (like the
   * signing secrets); admin answers and the delivery log show secret-like values masked.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** Deliveries sent per second at most, replacing the dispatcher's `maxPerSecond`; absent: that one. */
  readonly maxPerSecond?: number;
  /**
   * `thin` deliveries carry only `{ event, event_id, subject, sequence }` (the receiver fetches the
   * record with its own credential); absent or `full`: the whole event.
   */
  readonly payload?: WebhookPayloadMode;
  /**
   * `subject`: the events of one subject are sent strictly in `sequence` order, a later one waiting
   * while an earlier one is pending (in flight or waiting for a retry); `none` (or absent): each as it
   * comes. See {@link WebhookDeliveryStore.claimDue}.
   */
  readonly ordering?: WebhookOrdering;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly version: number;
}

/** What an endpoint's deliveries carry: the whole event, or its ids only. */
export type WebhookPayloadMode = 'full' | 'thin';

/**
 * The bounds of an endpoint's `retrySchedule`: 1 to 9 retries (2 to 10 attempts, as the dispatcher's
 * `attempts`), each 100 ms to 24 hours after the failure before it.
 */
export const RETRY_SCHEDULE_BOUNDS = {
  minRetries: 1,
  maxRetries: 9,
  minDelayMs: 100,
  maxDelayMs: 86_400_000,
} as const;

/** The bounds of an endpoint's `maxPerSecond`: one delivery every 10 s to 1,000 a second. */
export const MAX_PER_SECOND_BOUNDS = { min: 0.1, max: 1_000 } as const;

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
  /** The client the event is about (the event's `owner`): whose erasure redacts this delivery. */
  readonly owner?: string | null;
  /** When the delivery was made a tombstone by its client's erasure; null or absent otherwise. */
  readonly erasedAt?: number | null;
  /** The event's subject and its place among the subject's events (the event's own), when it has them. */
  readonly subject?: string | null;
  readonly sequence?: number | null;
  /**
   * When this delivery, blocking its subject on an ordered endpoint, was announced as holding it
   * (`webhook_subject.held`); null or absent when it was not.
   */
  readonly heldAnnouncedAt?: number | null;
}

/**
 * A subject of an ordered endpoint whose events wait: its first pending delivery failed at least once
 * and is waiting for a retry (or in flight again), and later deliveries of the subject wait behind it.
 */
export interface WebhookHeldSubjectRecord {
  readonly subject: string;
  /** The subject's pending delivery with the lowest sequence: what the others wait for. */
  readonly blocking: WebhookDeliveryRecord;
  /** How many pending deliveries of the subject wait behind it. */
  readonly waiting: number;
  /** When the oldest of those was made (epoch ms): how long the hold has kept an event back. */
  readonly since: number;
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
   * A delivery with a `subject` and `sequence` to an endpoint whose `ordering` is `subject` is leased
   * only when (a) no pending delivery of that endpoint and subject has a lower sequence (leased or
   * waiting for a retry), and (b) every event of the subject with a lower sequence has been relayed
   * from the outbox (its deliveries exist), so a later event cannot overtake one still being fanned out.
   * A delivery that ends (succeeded, dead, skipped) lets the next of its subject go.
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
   * attempts, so the delivery log stays bounded; pending ones are never touched. With `now`, an
   * endpoint's own `logRetentionDays` replaces `before` for its deliveries (`now` less that many days).
   * Returns how many.
   */
  prune(before: number, options?: { readonly now?: number }): Promise<number>;
  /**
   * Makes a tombstone of every delivery of the erased client (`owner`), pending ones too: its payload
   * keeps the envelope, `data` only the fields in `keep` and `"redacted": true` (erasedPayload); its
   * `lastError` goes; its attempts keep number, times, status code and outcome, their response
   * excerpt, error and headers go. Deliveries made of its events later (a relay that read an event
   * before the erasure) are refused by `createIfAbsent`/`createManyIfAbsent` when the event's outbox
   * copy is erased and the delivery is not (`erasedAt` null), and attempts recorded later for an erased
   * delivery are stored without those texts. Returns how many deliveries it changed.
   */
  erase(erasure: Erasure): Promise<number>;
  /**
   * The endpoint's held subjects (see {@link WebhookHeldSubjectRecord}), longest held first (by `since`, then
   * subject), at most `limit`. Whether the endpoint is ordered is the caller's to check.
   */
  listHeld(endpointId: string, limit: number): Promise<WebhookHeldSubjectRecord[]>;
  /**
   * Makes a pending delivery dead without an attempt (an operator skipping the event that holds its
   * subject): its lease ends (an attempt in flight then cannot record its outcome), `lastError` is
   * `reason`. Returns the delivery after the change; null when absent or not pending.
   */
  skip(id: string, reason: string, at: number): Promise<WebhookDeliveryRecord | null>;
  /**
   * Sets `heldAnnouncedAt` of a pending delivery that has none; true only for the one call that set it
   * (so one `webhook_subject.held` event is made per hold, whichever instance notices it first).
   */
  announceHeld(id: string, at: number): Promise<boolean>;
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
  /** The deployment's Ed25519 key pairs that sign `ed25519` endpoints' deliveries. */
  readonly signingKeys: WebhookSigningKeyStore;
}

/**
 * How long an adapter's `sweep` keeps finished webhook deliveries (viewable, re-sendable by time range)
 * unless told otherwise: 30 days, far beyond the retry horizon of about 32 hours.
 */
export const DEFAULT_DELIVERY_RETENTION_MS = 30 * 86_400_000;

/** The bounds of an endpoint's `logRetentionDays`: one day to about thirteen months. */
export const LOG_RETENTION_DAYS = { min: 1, max: 400 } as const;

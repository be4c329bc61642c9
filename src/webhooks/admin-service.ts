import { z } from 'zod';
import { newEvent } from '../core/domain/context.js';
import { SwitchboardError } from '../core/errors.js';
import type { DomainEvent } from '../core/events.js';
import { BUILT_IN_RESOURCES, CORE_RESOURCES } from '../core/resources/built-ins/index.js';
import type { Resource } from '../core/resources/define.js';
import { eventDataIn, latestApiVersion, resourcesByEventType } from '../core/resources/wire.js';
import { isoAt, isoOrNull, type Runtime } from '../core/runtime.js';
import type {
  Page,
  Range,
  WebhookAttemptRecord,
  WebhookDeliveryFilter,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookSignature,
} from '../core/storage/index.js';
import { validate } from '../core/validation.js';
import { checkReceiverUrl, type OutboundPolicy } from '../http/outbound.js';
import {
  EndpointCreateInput,
  EndpointPatchInput,
  ResendRangeInput,
  RotateSecretInput,
  TestEventInput,
} from './admin-schemas.js';
import { MASKED_HEADER_VALUE, maskedHeaders } from './custom-headers.js';
import {
  endpointHealth,
  endpointSummaries,
  type WebhookEndpointHealth,
  type WebhookEndpointSummary,
} from './endpoint-health.js';
import { createEventExamples, webhookEventExample } from './event-examples.js';
import { pendingDelivery } from './fan-out.js';
import {
  testEventData,
  thinWebhookPayload,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT,
  webhookPayload,
} from './payload.js';
import { generateWebhookSecret } from './secret.js';
import { createWebhookKeyRing, type WebhookKeyRing, type WebhookSigningKey } from './signing-keys.js';

/**
 * An endpoint as admins see it: never with its secrets, only when each was made and expires. Times are
 * ISO-8601 text, as on the wire (the stored record keeps epoch milliseconds).
 */
export interface WebhookEndpoint
  extends Omit<WebhookEndpointRecord, 'secrets' | 'failingSince' | 'createdAt' | 'updatedAt' | 'signature'> {
  /** How deliveries are signed: `hmac` with the endpoint's secret, or `ed25519` with the deployment's keys. */
  readonly signature: WebhookSignature;
  readonly secrets: readonly { readonly createdAt: string; readonly expiresAt: string | null }[];
  readonly failingSince: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What create and rotate return: the only time the new secret is shown. */
export interface WebhookEndpointWithSecret {
  readonly endpoint: WebhookEndpoint;
  readonly secret: string;
}

/** A delivery as admins see it: the stored record without its lease, times as ISO-8601 text. */
export interface WebhookDelivery
  extends Omit<
    WebhookDeliveryRecord,
    'leasedBy' | 'leaseUntil' | 'nextAttemptAt' | 'createdAt' | 'updatedAt' | 'erasedAt' | 'heldAnnouncedAt'
  > {
  readonly nextAttemptAt: string | null;
  /** When its client's erasure made it a tombstone; null otherwise. */
  readonly erasedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A held subject of an ordered endpoint as admins see it: `since` as ISO-8601 text. */
export interface WebhookHeldSubject {
  readonly subject: string;
  /** The subject's first pending delivery, which failed and waits for its retry. */
  readonly blocking: WebhookDelivery;
  /** How many later deliveries of the subject wait behind it. */
  readonly waiting: number;
  /** When the oldest of those was made. */
  readonly since: string;
}

/** The `lastError` of a delivery an operator skipped. */
export const SKIPPED_REASON = 'Skipped by an operator; the later events of its subject were let go.';

/**
 * An attempt as admins see it: the stored record, its start as ISO-8601 text, and its `number` its
 * place in the delivery's log (1 first), counted across re-sends, so a replay's attempt is #2, not #1.
 */
export interface WebhookAttempt extends Omit<WebhookAttemptRecord, 'startedAt'> {
  readonly startedAt: string;
}

/**
 * Options of {@link createWebhookAdmin}: which receiver URLs are allowed, the secret rotation overlap,
 * the catalogue.
 */
export interface WebhookAdminOptions {
  /** Which receiver URLs may be registered (checked again on the resolved address at send time). */
  readonly outbound?: OutboundPolicy;
  /** How long a rotated-out secret keeps signing, unless the call says otherwise (default 24 h). */
  readonly rotationOverlapMs?: number;
  /** Called after deliveries were queued (sent again, or a test event), e.g. to wake the dispatcher. */
  readonly onRequeue?: () => void;
  /**
   * Called after a change committed an event of its own (an endpoint enabled or disabled, a secret
   * rotated), e.g. to wake the outbox relay.
   */
  readonly onCommit?: () => void;
  /** Event types beside the resources', listed in the catalogue (those a host's own code publishes). */
  readonly eventTypes?: readonly string[];
  /**
   * The resources whose declarations give the catalogue's examples of `data` (default: the built-in
   * ones); pass the declared ones too, or their events' examples are `{}`.
   */
  readonly resources?: readonly Resource[];
  /**
   * The API version an endpoint is pinned to when its input names none (GraphQL and the console
   * register this way); default the newest the resources declare. REST names the version it is on.
   */
  readonly apiVersion?: number;
  /** The deployment's signing keys of `ed25519` endpoints (default: a ring over the runtime's storage). */
  readonly keyRing?: WebhookKeyRing;
}

/**
 * Webhook management as plain functions, for REST, GraphQL or a CLI. Inputs are validated; expected
 * failures are `SwitchboardError`s (`not_found`, `validation_failed`, `precondition_failed`).
 */
export interface WebhookAdmin {
  createEndpoint(input: unknown): Promise<WebhookEndpointWithSecret>;
  listEndpoints(range: Range): Promise<Page<WebhookEndpoint>>;
  getEndpoint(id: string): Promise<WebhookEndpoint>;
  /** Partial update; enabling a disabled endpoint clears its failure record. */
  updateEndpoint(
    id: string,
    patch: unknown,
    options?: { readonly ifVersion?: number },
  ): Promise<WebhookEndpoint>;
  deleteEndpoint(id: string): Promise<void>;
  /** A new secret; the previous one keeps signing alongside it for the overlap (`{ overlapSeconds }`). */
  rotateSecret(id: string, input?: unknown): Promise<WebhookEndpointWithSecret>;
  /** The delivery log, newest first, filtered by endpoint, status, event type and creation time. */
  listDeliveries(filter: WebhookDeliveryFilter, range: Range): Promise<Page<WebhookDelivery>>;
  getDelivery(id: string): Promise<WebhookDelivery>;
  listAttempts(deliveryId: string): Promise<WebhookAttempt[]>;
  /** Sends a finished (succeeded or dead) delivery again, with a fresh schedule. */
  resendDelivery(id: string): Promise<WebhookDelivery>;
  /**
   * Attempts any delivery now: a finished one starts a fresh schedule (as `resendDelivery`), a pending
   * one that failed is due now, its schedule kept. One being attempted this moment is a `conflict`.
   */
  retryDelivery(id: string): Promise<WebhookDelivery>;
  /**
   * Sends again every delivery created in [`from`, `to`) (`{ endpointId?, from, to?, status? }`) with
   * that status: `dead` (default) or `succeeded` ones start a fresh schedule; `failed` takes dead ones
   * and those waiting after a failed attempt, which are due now. Without `to`, every one since `from`.
   */
  resendDeliveries(input: unknown): Promise<{ readonly requeued: number }>;
  /**
   * Queues a test event for this endpoint alone, due now, and sent like every delivery: signed, retried,
   * in the log. `webhook.test` unless `{ eventType }` names a kind of the catalogue, whose example
   * `data` it then carries. A disabled endpoint is a `conflict`.
   */
  sendTestEvent(endpointId: string, input?: unknown): Promise<WebhookDelivery>;
  /** Attempts and deliveries of the last 24 hours, those waiting now, and the latest failed attempts. */
  endpointHealth(endpointId: string): Promise<WebhookEndpointHealth>;
  /** Each endpoint's attempts of the last 24 hours and its latest attempt (the list's health column). */
  endpointSummaries(endpointIds: readonly string[]): Promise<WebhookEndpointSummary[]>;
  /** The deployment's Ed25519 signing keys not yet expired, the active one first (never a private key). */
  listSigningKeys(): Promise<WebhookSigningKey[]>;
  /**
   * A new Ed25519 key signs `ed25519` endpoints' deliveries; the previous ones keep signing beside it,
   * and stay published, for the overlap (`{ overlapSeconds }`, default as secrets'; 0 drops them).
   */
  rotateSigningKey(input?: unknown): Promise<WebhookSigningKey[]>;
  /**
   * An ordered endpoint's held subjects, longest held first (at most `limit`, default 100): each with
   * the delivery that failed and blocks it, since when and how many wait. Empty for an unordered one.
   */
  listHeldSubjects(endpointId: string, options?: { readonly limit?: number }): Promise<WebhookHeldSubject[]>;
  /**
   * Gives up on a pending delivery without sending it: it becomes dead, with a reason saying so, and the
   * next event of its subject goes (an operator skipping the event that holds an ordered subject). Not
   * pending is a `conflict`; an attempt in flight then records nothing.
   */
  skipDelivery(id: string): Promise<WebhookDelivery>;
  /** Every event kind an endpoint can subscribe to. */
  eventTypes(): readonly string[];
  /**
   * An example of the `data` of an event kind of the catalogue, its records in an API version's shapes
   * (default the current one); `{}` when none is known.
   */
  eventExample(type: string, apiVersion?: number): Readonly<Record<string, unknown>>;
}

/**
 * Creates the {@link WebhookAdmin} service over the runtime's storage.
 *
 * @example
 * const admin = createWebhookAdmin(createRuntime({ storage }));
 * const { endpoint, secret } = await admin.createEndpoint({
 *   url: 'https://bot.example.com/hooks', eventTypes: ['order.*'],
 * });
 */
export function createWebhookAdmin(
  runtime: Pick<Runtime, 'storage' | 'clock' | 'ids'>,
  options: WebhookAdminOptions = {},
): WebhookAdmin {
  const { storage, clock, ids } = runtime;
  const outbound = options.outbound ?? {};
  const overlapMs = options.rotationOverlapMs ?? 86_400_000;
  const keyRing = options.keyRing ?? createWebhookKeyRing(runtime, { rotationOverlapMs: overlapMs });
  const endpoints = storage.webhooks.endpoints;
  const deliveries = storage.webhooks.deliveries;
  const resources = options.resources ?? [...CORE_RESOURCES, ...BUILT_IN_RESOURCES];
  // Every event the resources declare: a resource added is subscribable with no list to keep.
  const catalogue: readonly string[] = Object.freeze([
    ...new Set([
      ...resources.flatMap((r) => r.eventTypes),
      ...(options.eventTypes ?? []),
      ...WEBHOOK_EVENT_TYPES,
    ]),
  ]);
  const listed = new Set(catalogue);
  const examples = createEventExamples(resources);
  const resourceOf = resourcesByEventType(resources);
  // Only a version the resources declare (or 1) may be pinned: later ones have no shapes to send.
  const apiVersions = z.object({ apiVersion: z.number().max(latestApiVersion(resources)).optional() });
  const currentApiVersion = options.apiVersion ?? latestApiVersion(resources);

  const checkUrl = (url: string): void => {
    const problem = checkReceiverUrl(url, outbound);
    if (!problem) return;
    throw new SwitchboardError('validation_failed', `The input is not valid: check url.`, {
      details: [{ field: 'url', code: 'invalid_url', message: `The receiver URL ${problem}.` }],
    });
  };
  const endpointOrThrow = async (id: string): Promise<WebhookEndpointRecord> => {
    const endpoint = await endpoints.get(id);
    if (!endpoint) throw new SwitchboardError('not_found', `No webhook endpoint with id "${id}".`);
    return endpoint;
  };
  const deliveryOrThrow = async (id: string): Promise<WebhookDeliveryRecord> => {
    const delivery = await deliveries.get(id);
    if (!delivery) throw new SwitchboardError('not_found', `No webhook delivery with id "${id}".`);
    return delivery;
  };
  const eventExample = (type: string, apiVersion = currentApiVersion): Readonly<Record<string, unknown>> => {
    if (!listed.has(type)) return {};
    const example = webhookEventExample(type) ?? examples.of(type);
    if (!example) return {};
    const resource = resourceOf.get(type);
    return resource ? eventDataIn(resource, example, apiVersion) : example;
  };
  /** Writes the change, and the event that announces it (if any) in the same transaction. */
  const save = async (
    current: WebhookEndpointRecord,
    next: WebhookEndpointRecord,
    event?: DomainEvent,
  ): Promise<void> => {
    const saved = event
      ? await storage.transaction(async (tx) => {
          if (!(await tx.webhooks.endpoints.update(next, current.version))) return false;
          await tx.outbox.append(event);
          return true;
        })
      : await endpoints.update(next, current.version);
    if (!saved) {
      throw new SwitchboardError(
        'precondition_failed',
        'The endpoint changed meanwhile; read it again and retry.',
      );
    }
    if (event) options.onCommit?.();
  };
  /** An event about an endpoint, its subject the endpoint: a receiver sees them in order. */
  const endpointEvent = (type: string, endpoint: WebhookEndpointRecord, data: Record<string, unknown>) =>
    newEvent({ clock, ids }, type, { id: endpoint.id, url: endpoint.url, ...data }, { subject: endpoint.id });

  return {
    async createEndpoint(input) {
      const fields = validate(EndpointCreateInput, input);
      validate(apiVersions, { apiVersion: fields.apiVersion });
      checkUrl(fields.url);
      const now = clock.now();
      const secret = generateWebhookSecret();
      const enabled = fields.enabled ?? true;
      const endpoint: WebhookEndpointRecord = {
        id: ids('whe'),
        url: fields.url,
        description: fields.description ?? '',
        eventTypes: [...new Set(fields.eventTypes)],
        secrets: [{ secret, createdAt: now, expiresAt: null }],
        // Ed25519 exists only as Standard Webhooks' `v1a`: its scheme is `standard` unless told otherwise.
        scheme: fields.scheme ?? (fields.signature === 'ed25519' ? 'standard' : 'switchboard'),
        signature: fields.signature ?? 'hmac',
        apiVersion: fields.apiVersion ?? currentApiVersion,
        enabled,
        disabledReason: enabled ? null : 'manual',
        failingSince: null,
        logRetentionDays: fields.logRetentionDays ?? null,
        ordering: fields.ordering ?? 'none',
        createdAt: now,
        updatedAt: now,
        version: 1,
        ...policyOf(fields),
        ...(fields.payload ? { payload: fields.payload } : {}),
      };
      checkSignature(endpoint);
      await endpoints.insert(endpoint);
      return { endpoint: toView(endpoint), secret };
    },
    async listEndpoints(range) {
      const page = await endpoints.list(range);
      return { items: page.items.map(toView), total: page.total };
    },
    async getEndpoint(id) {
      return toView(await endpointOrThrow(id));
    },
    async updateEndpoint(id, patch, { ifVersion } = {}) {
      const fields = validate(EndpointPatchInput, patch);
      validate(apiVersions, { apiVersion: fields.apiVersion });
      if (fields.url !== undefined) checkUrl(fields.url);
      const current = await endpointOrThrow(id);
      if (ifVersion !== undefined && ifVersion !== current.version) {
        throw new SwitchboardError('precondition_failed', 'The endpoint has changed since you read it.');
      }
      const enabled = fields.enabled ?? current.enabled;
      const { retrySchedule, headers, maxPerSecond, ...plain } = fields;
      const next: WebhookEndpointRecord = withPolicy(
        {
          ...current,
          ...plain,
          eventTypes: fields.eventTypes ? [...new Set(fields.eventTypes)] : current.eventTypes,
          enabled,
          disabledReason: enabled ? null : current.enabled ? 'manual' : current.disabledReason,
          failingSince: enabled && !current.enabled ? null : current.failingSince,
          updatedAt: clock.now(),
          version: current.version + 1,
        },
        {
          retrySchedule,
          maxPerSecond,
          headers: headers === undefined ? undefined : mergedHeaders(current, headers),
        },
      );
      checkSignature(next);
      // Enabling or disabling is announced, in the same transaction (as the dispatcher's disabling is).
      const event =
        enabled === current.enabled
          ? undefined
          : enabled
            ? endpointEvent('webhook_endpoint.enabled', next, { disabledReason: current.disabledReason })
            : endpointEvent('webhook_endpoint.disabled', next, {
                reason: 'manual',
                failingSince: isoOrNull(current.failingSince),
              });
      await save(current, next, event);
      return toView(next);
    },
    async deleteEndpoint(id) {
      if (!(await endpoints.delete(id)))
        throw new SwitchboardError('not_found', `No webhook endpoint with id "${id}".`);
    },
    async rotateSecret(id, input = {}) {
      const { overlapSeconds } = validate(RotateSecretInput, input ?? {});
      const current = await endpointOrThrow(id);
      const now = clock.now();
      const until = now + (overlapSeconds === undefined ? overlapMs : overlapSeconds * 1000);
      const secret = generateWebhookSecret();
      const kept = current.secrets
        .filter((s) => s.expiresAt === null || s.expiresAt > now)
        .map((s) => ({ ...s, expiresAt: s.expiresAt === null || s.expiresAt > until ? until : s.expiresAt }))
        .filter((s) => s.expiresAt > now);
      const next: WebhookEndpointRecord = {
        ...current,
        secrets: [{ secret, createdAt: now, expiresAt: null }, ...kept],
        updatedAt: now,
        version: current.version + 1,
      };
      // Never the secret: when the new one was made and until when the previous ones still sign.
      const rotated = endpointEvent('webhook_endpoint.secret_rotated', current, {
        rotatedAt: isoAt(now),
        previousSecretsExpireAt: kept.length > 0 ? isoAt(Math.max(...kept.map((s) => s.expiresAt))) : null,
      });
      await save(current, next, rotated);
      return { endpoint: toView(next), secret };
    },
    async listDeliveries(filter, range) {
      if (filter.endpointId !== undefined) await endpointOrThrow(filter.endpointId);
      const page = await deliveries.list(filter, range);
      return { items: page.items.map(toDeliveryView), total: page.total };
    },
    async getDelivery(id) {
      return toDeliveryView(await deliveryOrThrow(id));
    },
    async listAttempts(deliveryId) {
      await deliveryOrThrow(deliveryId);
      const attempts = await storage.webhooks.attempts.listByDelivery(deliveryId);
      // The stored number restarts at 1 with each re-send's schedule; the log counts them all.
      return attempts.map((a, i) => ({ ...toAttemptView(a), number: i + 1 }));
    },
    async resendDelivery(id) {
      const delivery = await deliveryOrThrow(id);
      if (delivery.status === 'pending') {
        throw new SwitchboardError(
          'conflict',
          'This delivery is still being attempted; it cannot be re-sent now.',
        );
      }
      await deliveries.requeue({ ids: [id] }, clock.now());
      options.onRequeue?.();
      return toDeliveryView(await deliveryOrThrow(id));
    },
    async retryDelivery(id) {
      const delivery = await deliveryOrThrow(id);
      const now = clock.now();
      if (delivery.status !== 'pending') await deliveries.requeue({ ids: [id] }, now);
      else if (delivery.leaseUntil !== null && delivery.leaseUntil > now) {
        throw new SwitchboardError(
          'conflict',
          'This delivery is being attempted right now; look again in a moment.',
        );
      } else if (delivery.attempts > 0) await deliveries.expedite({ ids: [id] }, now);
      // A pending delivery never attempted is due already (or waits for its receiver's pace).
      options.onRequeue?.();
      return toDeliveryView(await deliveryOrThrow(id));
    },
    async resendDeliveries(input) {
      const fields = validate(ResendRangeInput, input);
      if (fields.endpointId !== undefined) await endpointOrThrow(fields.endpointId);
      const from = Date.parse(fields.from);
      // Without `to`, up to now: no bound at all, so what was created this very millisecond counts too.
      const to = fields.to === undefined ? undefined : Date.parse(fields.to);
      if (to !== undefined && from >= to) {
        throw new SwitchboardError('validation_failed', 'The input is not valid: check to.', {
          details: [{ field: 'to', code: 'invalid_range', message: 'to must be after from.' }],
        });
      }
      const range = { endpointId: fields.endpointId, createdFrom: from, createdBefore: to };
      const status = fields.status ?? 'dead';
      const now = clock.now();
      const requeued =
        status === 'failed'
          ? (await deliveries.requeue({ ...range, status: 'dead' }, now)) +
            (await deliveries.expedite(range, now))
          : await deliveries.requeue({ ...range, status }, now);
      if (requeued > 0) options.onRequeue?.();
      return { requeued };
    },
    async sendTestEvent(endpointId, input = {}) {
      const { eventType = WEBHOOK_TEST_EVENT } = validate(TestEventInput, input ?? {});
      if (!listed.has(eventType)) {
        throw new SwitchboardError('validation_failed', 'The input is not valid: check eventType.', {
          details: [
            {
              field: 'eventType',
              code: 'invalid_value',
              message: `"${eventType}" is not in the event catalogue (GET /webhook-event-types lists it).`,
            },
          ],
        });
      }
      const endpoint = await endpointOrThrow(endpointId);
      if (!endpoint.enabled) {
        throw new SwitchboardError(
          'conflict',
          `The webhook endpoint "${endpointId}" is disabled (${endpoint.disabledReason ?? 'manual'}); enable it to send a test event.`,
          {
            details: [
              { field: 'enabled', code: 'disabled', message: 'Enable the endpoint to send it a test event.' },
            ],
          },
        );
      }
      // Made like every event: in the trace of the request that asked for it.
      const data =
        eventType === WEBHOOK_TEST_EVENT
          ? testEventData(endpointId)
          : { ...eventExample(eventType, endpoint.apiVersion) };
      const event = newEvent({ clock, ids }, eventType, data);
      const delivery = pendingDelivery(
        ids('whd'),
        endpointId,
        event,
        endpoint.payload === 'thin' ? thinWebhookPayload(event) : webhookPayload(event),
        Date.parse(event.occurredAt),
      );
      await deliveries.createIfAbsent(delivery);
      options.onRequeue?.();
      return toDeliveryView(delivery);
    },
    async endpointHealth(endpointId) {
      return endpointHealth(storage, await endpointOrThrow(endpointId), clock.now());
    },
    async endpointSummaries(endpointIds) {
      return endpointSummaries(storage, endpointIds, clock.now());
    },
    listSigningKeys: () => keyRing.list(),
    rotateSigningKey: (input) => keyRing.rotate(input),
    async listHeldSubjects(endpointId, { limit = 100 } = {}) {
      const endpoint = await endpointOrThrow(endpointId);
      if (endpoint.ordering !== 'subject') return [];
      const held = await deliveries.listHeld(endpointId, Math.max(0, Math.min(limit, 100)));
      return held.map((h) => ({ ...h, blocking: toDeliveryView(h.blocking), since: isoAt(h.since) }));
    },
    async skipDelivery(id) {
      await deliveryOrThrow(id);
      const skipped = await deliveries.skip(id, SKIPPED_REASON, clock.now());
      if (!skipped) {
        throw new SwitchboardError(
          'conflict',
          'This delivery is not pending: only a pending one can be skipped.',
        );
      }
      // The next delivery of its subject may go now.
      options.onRequeue?.();
      return toDeliveryView(skipped);
    },
    eventTypes() {
      return catalogue;
    },
    eventExample,
  };
}

/** The policy fields of a new endpoint: only those given, so an endpoint without them has none. */
function policyOf(fields: {
  readonly retrySchedule?: readonly number[] | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly maxPerSecond?: number | undefined;
}): Partial<WebhookEndpointRecord> {
  return {
    ...(fields.retrySchedule ? { retrySchedule: fields.retrySchedule } : {}),
    ...(fields.headers && Object.keys(fields.headers).length > 0 ? { headers: fields.headers } : {}),
    ...(fields.maxPerSecond !== undefined ? { maxPerSecond: fields.maxPerSecond } : {}),
  };
}

/**
 * An endpoint after a change of its policy: a field left out stays, a null one goes (the endpoint
 * then follows the dispatcher's schedule or pace, or sends no custom headers).
 */
function withPolicy(
  endpoint: WebhookEndpointRecord,
  change: {
    readonly retrySchedule?: readonly number[] | null | undefined;
    readonly headers?: Readonly<Record<string, string>> | null | undefined;
    readonly maxPerSecond?: number | null | undefined;
  },
): WebhookEndpointRecord {
  const { retrySchedule, headers, maxPerSecond, ...rest } = endpoint;
  const pick = <T>(given: T | null | undefined, kept: T | undefined): T | undefined =>
    given === undefined ? kept : (given ?? undefined);
  return {
    ...rest,
    ...policyOf({
      retrySchedule: pick(change.retrySchedule, retrySchedule),
      headers: pick(change.headers, headers),
      maxPerSecond: pick(change.maxPerSecond, maxPerSecond),
    }),
  };
}

/**
 * The endpoint's headers after a change (RFC 7396 merge: a name given is set, a null one removed;
 * null removes all). A value sent back masked keeps the value it stands for.
 */
function mergedHeaders(
  current: WebhookEndpointRecord,
  change: Readonly<Record<string, string | null>> | null,
): Record<string, string> | null {
  if (change === null) return null;
  const merged: Record<string, string> = { ...current.headers };
  for (const [name, value] of Object.entries(change)) {
    if (value === null) delete merged[name];
    else if (value !== MASKED_HEADER_VALUE) merged[name] = value;
    else if (current.headers?.[name] === undefined) {
      throw new SwitchboardError('validation_failed', `The input is not valid: check headers.${name}.`, {
        details: [
          {
            field: `headers.${name}`,
            code: 'invalid_header',
            message: `The header "${name}" has no value to keep: send its value, not the mask.`,
          },
        ],
      });
    }
  }
  return merged;
}

/** Ed25519 signatures travel in Standard Webhooks headers only (`webhook-signature: v1a,…`). */
function checkSignature(endpoint: WebhookEndpointRecord): void {
  if (endpoint.signature !== 'ed25519' || endpoint.scheme === 'standard') return;
  throw new SwitchboardError('validation_failed', 'The input is not valid: check scheme.', {
    details: [
      {
        field: 'scheme',
        code: 'invalid_value',
        message: 'An ed25519 signature is sent in Standard Webhooks headers: the scheme must be "standard".',
      },
    ],
  });
}

function toView(endpoint: WebhookEndpointRecord): WebhookEndpoint {
  return {
    ...endpoint,
    signature: endpoint.signature ?? 'hmac',
    ordering: endpoint.ordering ?? 'none',
    // A credential among the endpoint's headers is never shown again, as its secret is not.
    ...(endpoint.headers ? { headers: maskedHeaders(endpoint.headers) } : {}),
    secrets: endpoint.secrets.map(({ createdAt, expiresAt }) => ({
      createdAt: isoAt(createdAt),
      expiresAt: isoOrNull(expiresAt),
    })),
    failingSince: isoOrNull(endpoint.failingSince),
    logRetentionDays: endpoint.logRetentionDays ?? null,
    createdAt: isoAt(endpoint.createdAt),
    updatedAt: isoAt(endpoint.updatedAt),
  };
}

function toDeliveryView({
  leasedBy: _l,
  leaseUntil: _u,
  heldAnnouncedAt: _h,
  ...delivery
}: WebhookDeliveryRecord): WebhookDelivery {
  return {
    ...delivery,
    subject: delivery.subject ?? null,
    sequence: delivery.sequence ?? null,
    nextAttemptAt: isoOrNull(delivery.nextAttemptAt),
    owner: delivery.owner ?? null,
    erasedAt: isoOrNull(delivery.erasedAt ?? null),
    createdAt: isoAt(delivery.createdAt),
    updatedAt: isoAt(delivery.updatedAt),
  };
}

function toAttemptView(attempt: WebhookAttemptRecord): WebhookAttempt {
  return { ...attempt, startedAt: isoAt(attempt.startedAt) };
}

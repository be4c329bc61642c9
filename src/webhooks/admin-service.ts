import { z } from 'zod';
import { newEvent } from '../core/domain/context.js';
import { SwitchboardError } from '../core/errors.js';
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
import {
  endpointHealth,
  endpointSummaries,
  type WebhookEndpointHealth,
  type WebhookEndpointSummary,
} from './endpoint-health.js';
import { createEventExamples, webhookEventExample } from './event-examples.js';
import { pendingDelivery } from './fan-out.js';
import { testEventData, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT, webhookPayload } from './payload.js';
import { generateWebhookSecret } from './secret.js';

/**
 * An endpoint as admins see it: never with its secrets, only when each was made and expires. Times are
 * ISO-8601 text, as on the wire (the stored record keeps epoch milliseconds).
 */
export interface WebhookEndpoint
  extends Omit<WebhookEndpointRecord, 'secrets' | 'failingSince' | 'createdAt' | 'updatedAt'> {
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
    'leasedBy' | 'leaseUntil' | 'nextAttemptAt' | 'createdAt' | 'updatedAt'
  > {
  readonly nextAttemptAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

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
  const save = async (current: WebhookEndpointRecord, next: WebhookEndpointRecord): Promise<void> => {
    if (!(await endpoints.update(next, current.version))) {
      throw new SwitchboardError(
        'precondition_failed',
        'The endpoint changed meanwhile; read it again and retry.',
      );
    }
  };

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
        scheme: fields.scheme ?? 'switchboard',
        apiVersion: fields.apiVersion ?? currentApiVersion,
        enabled,
        disabledReason: enabled ? null : 'manual',
        failingSince: null,
        createdAt: now,
        updatedAt: now,
        version: 1,
      };
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
      const next: WebhookEndpointRecord = {
        ...current,
        ...fields,
        eventTypes: fields.eventTypes ? [...new Set(fields.eventTypes)] : current.eventTypes,
        enabled,
        disabledReason: enabled ? null : current.enabled ? 'manual' : current.disabledReason,
        failingSince: enabled && !current.enabled ? null : current.failingSince,
        updatedAt: clock.now(),
        version: current.version + 1,
      };
      await save(current, next);
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
      await save(current, next);
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
        webhookPayload(event),
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
    eventTypes() {
      return catalogue;
    },
    eventExample,
  };
}

function toView(endpoint: WebhookEndpointRecord): WebhookEndpoint {
  return {
    ...endpoint,
    secrets: endpoint.secrets.map(({ createdAt, expiresAt }) => ({
      createdAt: isoAt(createdAt),
      expiresAt: isoOrNull(expiresAt),
    })),
    failingSince: isoOrNull(endpoint.failingSince),
    createdAt: isoAt(endpoint.createdAt),
    updatedAt: isoAt(endpoint.updatedAt),
  };
}

function toDeliveryView({
  leasedBy: _l,
  leaseUntil: _u,
  ...delivery
}: WebhookDeliveryRecord): WebhookDelivery {
  return {
    ...delivery,
    nextAttemptAt: isoOrNull(delivery.nextAttemptAt),
    createdAt: isoAt(delivery.createdAt),
    updatedAt: isoAt(delivery.updatedAt),
  };
}

function toAttemptView(attempt: WebhookAttemptRecord): WebhookAttempt {
  return { ...attempt, startedAt: isoAt(attempt.startedAt) };
}

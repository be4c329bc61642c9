import type { DomainEvent } from '../core/events.js';
import { matchesEventType } from '../core/events.js';
import type { OutboxHandler } from '../core/outbox-relay.js';
import { BUILT_IN_RESOURCES, CORE_RESOURCES } from '../core/resources/built-ins/index.js';
import type { Resource } from '../core/resources/define.js';
import type { Runtime } from '../core/runtime.js';
import type { WebhookDeliveryRecord } from '../core/storage/index.js';
import { thinWebhookPayload, versionedPayloads } from './payload.js';

/** Options of {@link createWebhookFanOut}: the resources, and a hook to wake the dispatcher. */
export interface WebhookFanOutOptions {
  /**
   * Whose events carry records in each endpoint's API version (default: the built-in ones); other
   * events are sent as published.
   */
  readonly resources?: readonly Resource[];
  /** Called when deliveries were created, e.g. to wake the dispatcher. */
  readonly onDeliveries?: () => void;
}

/**
 * The durable outbox handler that turns each committed event into one delivery per matching enabled
 * endpoint, for a whole batch of events in one write. Each delivery stores its body, in the shapes of
 * its endpoint's API version, so every retry sends the same bytes. Idempotent per (event_id, endpoint): the relay
 * hands events out again after a crash, and only the deliveries still missing are created. Register it
 * with `relay.use(...)`. Background work: on the runtime storage's background connections when it has them.
 *
 * @example
 * relay.use(createWebhookFanOut(runtime, { onDeliveries: () => dispatcher.kick() }));
 */
export function createWebhookFanOut(
  runtime: Pick<Runtime, 'storage' | 'clock' | 'ids'>,
  options: WebhookFanOutOptions = {},
): OutboxHandler {
  const storage = runtime.storage.background ?? runtime.storage;
  const { clock, ids } = runtime;
  const payloadOf = versionedPayloads(options.resources ?? [...CORE_RESOURCES, ...BUILT_IN_RESOURCES]);
  return async (events) => {
    const endpoints = await storage.webhooks.endpoints.listEnabled();
    const now = clock.now();
    const deliveries: WebhookDeliveryRecord[] = [];
    for (const event of events) {
      const matching = endpoints.filter((e) => e.eventTypes.some((p) => matchesEventType(p, event.type)));
      if (matching.length === 0) continue;
      // One body per API version among the endpoints (and one thin body), not one per endpoint.
      const payloads = new Map<number | 'thin', string>();
      for (const endpoint of matching) {
        const shape = endpoint.payload === 'thin' ? 'thin' : endpoint.apiVersion;
        let payload = payloads.get(shape);
        if (payload === undefined) {
          payload = shape === 'thin' ? thinWebhookPayload(event) : payloadOf(event, shape);
          payloads.set(shape, payload);
        }
        deliveries.push(pendingDelivery(ids('whd'), endpoint.id, event, payload, now));
      }
    }
    // One write for the whole batch: a hundred events, or one event to a thousand endpoints.
    const created = deliveries.length ? await storage.webhooks.deliveries.createManyIfAbsent(deliveries) : 0;
    if (created > 0) options.onDeliveries?.();
  };
}

/** A delivery of `event` to one endpoint, due at once: what fan-out and a test event both create. */
export function pendingDelivery(
  id: string,
  endpointId: string,
  event: DomainEvent,
  payload: string,
  now: number,
): WebhookDeliveryRecord {
  return {
    id,
    endpointId,
    eventId: event.id,
    eventType: event.type,
    payload,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    leasedBy: null,
    leaseUntil: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
    traceparent: event.traceparent ?? null,
    // Whose erasure finds it; made from a tombstone (its client erased), it is one from the start.
    owner: event.owner ?? null,
    erasedAt: event.redacted ? now : null,
    // An ordered endpoint sends a subject's deliveries in this order (see `claimDue`).
    subject: event.subject ?? null,
    sequence: event.sequence ?? null,
    heldAnnouncedAt: null,
  };
}

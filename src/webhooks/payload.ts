import { type DomainEvent, eventBody } from '../core/events.js';
import type { Resource } from '../core/resources/define.js';
import { resourcesByEventType, versionedEventData } from '../core/resources/wire.js';

/**
 * The kind of a test event, sent to one endpoint on an admin's request (`sendTestEvent`).
 *
 * @example
 * onEvent: async (event) => {
 *   if (event.type === WEBHOOK_TEST_EVENT) return; // nothing changed: acknowledge it
 * }
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Event kinds the webhook module itself emits, besides the domain's. */
export const WEBHOOK_EVENT_TYPES = [
  'webhook_endpoint.disabled',
  'webhook_endpoint.enabled',
  'webhook_endpoint.secret_rotated',
  'webhook_delivery.exhausted',
  'webhook_subject.held',
  WEBHOOK_TEST_EVENT,
] as const;

/**
 * The event that says a delivery was given up on. A delivery of this event that is given up on in turn
 * announces nothing: an operator endpoint that fails cannot feed itself events forever.
 */
export const WEBHOOK_DELIVERY_EXHAUSTED = 'webhook_delivery.exhausted';

/** The `data` of a test event: says it is one, and names the endpoint it was sent to. */
export function testEventData(endpointId: string): Record<string, unknown> {
  return { test: true, endpointId, message: 'A test event sent from the webhook admin; nothing changed.' };
}

/**
 * The body of every delivery of an event: the same bytes on every retry.
 *
 * @example
 * webhookPayload(event);
 * // {"event":"order.shipped","event_id":"evt_…","created_at":"2026-01-01T00:00:00.000Z",
 * //  "subject":"ord_…","sequence":3,
 * //  "data":{"id":"ord_…","status":"shipped","customerEmail":"ada@example.com",…}}
 */
export function webhookPayload(event: DomainEvent): string {
  return JSON.stringify(eventBody(event));
}

/**
 * The body of an event's deliveries to a `thin` endpoint: what happened and to which record, no data;
 * the receiver reads the record with its own credential.
 *
 * @example
 * thinWebhookPayload(event);
 * // {"event":"order.shipped","event_id":"evt_…","subject":"ord_…","sequence":3}
 */
export function thinWebhookPayload(event: DomainEvent): string {
  return JSON.stringify({
    event: event.type,
    event_id: event.id,
    ...(event.subject !== undefined ? { subject: event.subject } : {}),
    ...(event.sequence !== undefined ? { sequence: event.sequence } : {}),
  });
}

/**
 * The body of an event's deliveries to an endpoint pinned to an API version: a resource's event
 * carries its records as that version's GET answers them; any other event, its data as is.
 *
 * @example
 * const payloadOf = versionedPayloads(resources);
 * payloadOf(event, 2); // order.created: "total":{"amount":"12.50","currency":"EUR"}
 */
export function versionedPayloads(
  resources: readonly Resource[],
): (event: DomainEvent, apiVersion: number) => string {
  const byType = resourcesByEventType(resources);
  return (event, apiVersion) =>
    JSON.stringify(eventBody(event, versionedEventData(byType.get(event.type), event, apiVersion)));
}

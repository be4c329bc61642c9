import type { DomainEvent } from '../core/events.js';

/** Event kinds the webhook module itself emits, besides the domain's. */
export const WEBHOOK_EVENT_TYPES = ['webhook_endpoint.disabled'] as const;

/**
 * The body of every delivery of an event: the same bytes on every retry.
 *
 * @example
 * webhookPayload(event);
 * // {"event":"order.shipped","event_id":"evt_…","created_at":"2026-01-01T00:00:00.000Z",
 * //  "data":{"id":"ord_…","status":"shipped","customerEmail":"ada@example.com",…}}
 */
export function webhookPayload(event: DomainEvent): string {
  return JSON.stringify({
    event: event.type,
    event_id: event.id,
    created_at: event.occurredAt,
    data: event.data,
  });
}

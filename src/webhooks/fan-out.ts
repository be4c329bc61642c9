import { matchesEventType } from '../core/events.js';
import type { OutboxHandler } from '../core/outbox-relay.js';
import { type Clock, type IdGenerator, isoAt, sortableIds, systemClock } from '../core/runtime.js';
import type { Storage } from '../storage/contract/index.js';
import { webhookPayload } from './payload.js';

export interface WebhookFanOutOptions {
  readonly storage: Storage;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  /** Called when deliveries were created, e.g. to wake the dispatcher. */
  readonly onDeliveries?: () => void;
}

/**
 * The durable outbox handler that turns each committed event into one delivery per matching enabled
 * endpoint. Idempotent per (event_id, endpoint): the relay hands an event out again after a crash, and
 * only the deliveries still missing are created. Register it with `relay.use(...)`.
 *
 * @example
 * relay.use(createWebhookFanOut({ storage, onDeliveries: () => dispatcher.kick() }));
 */
export function createWebhookFanOut(options: WebhookFanOutOptions): OutboxHandler {
  const { storage } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? sortableIds;
  return async (event) => {
    const endpoints = await storage.webhooks.endpoints.listEnabled();
    let created = 0;
    let payload: string | undefined;
    for (const endpoint of endpoints) {
      if (!endpoint.eventTypes.some((pattern) => matchesEventType(pattern, event.type))) continue;
      payload ??= webhookPayload(event);
      const now = isoAt(clock.now());
      const inserted = await storage.webhooks.deliveries.createIfAbsent({
        id: ids('whd'),
        endpointId: endpoint.id,
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
      });
      if (inserted) created++;
    }
    if (created > 0) options.onDeliveries?.();
  };
}

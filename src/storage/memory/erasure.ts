import type { Erasure } from '../../core/storage/erasure.js';
import { erasedPayload } from '../../core/storage/erasure.js';
import type { WebhookAttemptRecord, WebhookDeliveryRecord } from '../../core/storage/index.js';
import { type Journal, put } from './journal.js';
import type { WebhookState } from './webhooks.js';

/** An attempt as a tombstone keeps it: number, times, status code and outcome, none of its texts. */
export function erasedAttempt(attempt: WebhookAttemptRecord): WebhookAttemptRecord {
  return { ...attempt, responseExcerpt: null, error: null, requestHeaders: null, responseHeaders: null };
}

/**
 * `erase` of the delivery store: each delivery of the client becomes a tombstone through `save` (which
 * keeps the queue's index right), and its attempts lose their texts.
 */
export function eraseDeliveries(
  state: WebhookState,
  journal: Journal,
  save: (delivery: WebhookDeliveryRecord) => void,
  { owner, keep, at }: Erasure,
): number {
  let erased = 0;
  for (const delivery of [...state.deliveries.values()]) {
    if (delivery.owner !== owner || delivery.erasedAt != null) continue;
    save({ ...delivery, payload: erasedPayload(delivery.payload, keep), lastError: null, erasedAt: at });
    const attempts = state.attempts.get(delivery.id);
    if (attempts) {
      const kept = attempts.map((a) => {
        const tombstone = Object.freeze(erasedAttempt(a));
        // The order attempts were recorded in stays theirs.
        state.attemptOrder.of.set(tombstone, state.attemptOrder.of.get(a) ?? 0);
        return tombstone;
      });
      put(journal, state.attempts, delivery.id, kept);
    }
    erased++;
  }
  return erased;
}

/**
 * Whether a delivery is one an erasure has overtaken: made from a copy of the event read before its
 * client was erased (the event's outbox copy is a tombstone now, the delivery is not).
 */
export function overtaken(state: WebhookState, delivery: WebhookDeliveryRecord): boolean {
  return delivery.erasedAt == null && state.erasedEvent(delivery.eventId);
}

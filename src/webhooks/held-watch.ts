import { newEvent } from '../core/domain/context.js';
import { type Clock, type IdGenerator, isoAt, isoOrNull, type Logger } from '../core/runtime.js';
import type { Storage, WebhookEndpointRecord, WebhookHeldSubjectRecord } from '../core/storage/index.js';

/** The event that says an ordered endpoint's subject has been held longer than the threshold. */
export const WEBHOOK_SUBJECT_HELD = 'webhook_subject.held';

/** Options of {@link createHeldWatch}. */
export interface HeldWatchOptions {
  readonly storage: Pick<Storage, 'transaction' | 'webhooks'>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** A subject held this long (its oldest waiting delivery made this long ago) is announced. */
  readonly heldAfterMs: number;
  /** Called after a hold was announced (an event is in the outbox), e.g. to wake the relay. */
  readonly onCommit?: () => void;
}

/**
 * Looks at every ordered endpoint's held subjects now and then (the dispatcher calls `maybeCheck` as
 * it claims) and announces each hold older than `heldAfterMs` with one `webhook_subject.held` event: the
 * blocking delivery is marked in the transaction that appends the event, so of several instances
 * watching, one announces it, once. A new blocking delivery (the old one succeeded, died or was
 * skipped, and the next failed in turn) is a new hold. Holds of that event's own deliveries are not
 * announced: a failing operator endpoint cannot feed itself events.
 */
export function createHeldWatch(options: HeldWatchOptions): { maybeCheck(now: number): void } {
  const { storage, clock, ids, logger, heldAfterMs } = options;
  // Often enough to announce within a quarter of the threshold, at most once a minute.
  const everyMs = Math.min(60_000, Math.max(50, heldAfterMs / 4));
  let nextAt = 0;
  let checking = false;

  async function announce(endpoint: WebhookEndpointRecord, held: WebhookHeldSubjectRecord, now: number) {
    const { blocking } = held;
    const data = {
      endpointId: endpoint.id,
      url: endpoint.url,
      subject: held.subject,
      waiting: held.waiting,
      since: isoAt(held.since),
      blocking: {
        id: blocking.id,
        eventId: blocking.eventId,
        eventType: blocking.eventType,
        sequence: blocking.sequence ?? null,
        attempts: blocking.attempts,
        nextAttemptAt: isoOrNull(blocking.nextAttemptAt),
        lastStatusCode: blocking.lastStatusCode,
        lastError: blocking.lastError,
      },
    };
    const event = newEvent({ clock, ids }, WEBHOOK_SUBJECT_HELD, data, { subject: endpoint.id });
    const announced = await storage.transaction(async (tx) => {
      if (!(await tx.webhooks.deliveries.announceHeld(blocking.id, now))) return false;
      await tx.outbox.append(event);
      return true;
    });
    if (!announced) return;
    logger.log('warn', 'webhook subject held', { endpointId: endpoint.id, subject: held.subject });
    options.onCommit?.();
  }

  async function check(now: number): Promise<void> {
    const ordered = (await storage.webhooks.endpoints.listEnabled()).filter((e) => e.ordering === 'subject');
    for (const endpoint of ordered) {
      for (const held of await storage.webhooks.deliveries.listHeld(endpoint.id, 100)) {
        // Longest held first: the rest are younger still.
        if (held.since > now - heldAfterMs) break;
        if (held.blocking.heldAnnouncedAt != null || held.blocking.eventType === WEBHOOK_SUBJECT_HELD)
          continue;
        await announce(endpoint, held, now);
      }
    }
  }

  return {
    maybeCheck(now) {
      if (checking || now < nextAt) return;
      nextAt = now + everyMs;
      checking = true;
      check(now)
        .catch((error) =>
          logger.log('warn', 'webhook hold check failed; will try again', { error: String(error) }),
        )
        .finally(() => {
          checking = false;
        });
    },
  };
}

import type { WebhookDeliveryStatus } from '../core/storage/index.js';
import type { RetrySchedule } from './schedule.js';
import { withJitter } from './schedule.js';
import type { AttemptResult } from './send.js';

export interface Decision {
  readonly status: WebhookDeliveryStatus;
  /** Epoch ms of the next attempt when still pending. */
  readonly nextAttemptAt: number | null;
  /** 410 Gone: the receiver asks never to be called again. */
  readonly gone: boolean;
}

export interface DecideOptions {
  readonly schedule: RetrySchedule;
  /** Attempts made, this one included. */
  readonly attempts: number;
  readonly now: number;
  readonly random: () => number;
  /** The longest `Retry-After` honoured. */
  readonly maxRetryAfterMs: number;
}

/** Network errors, timeouts, 5xx, 408, 429 (and unfollowed redirects) are worth another attempt. */
export function isRetryable(result: AttemptResult): boolean {
  const code = result.statusCode;
  return code === null || code >= 500 || code === 408 || code === 429 || (code >= 300 && code < 400);
}

/**
 * What follows an attempt: done, another attempt (when, per the schedule in storage, with jitter and
 * the receiver's `Retry-After` within bounds), or the dead letter.
 */
export function decide(result: AttemptResult, options: DecideOptions): Decision {
  if (result.ok) return { status: 'succeeded', nextAttemptAt: null, gone: false };
  if (result.statusCode === 410) return { status: 'dead', nextAttemptAt: null, gone: true };
  if (!isRetryable(result) || options.attempts >= options.schedule.attempts) {
    return { status: 'dead', nextAttemptAt: null, gone: false };
  }
  const scheduled = withJitter(
    options.schedule.delayAfter(options.attempts),
    options.random,
    options.schedule.jitter,
  );
  const asked = result.retryAfterMs === null ? 0 : Math.min(result.retryAfterMs, options.maxRetryAfterMs);
  return { status: 'pending', nextAttemptAt: options.now + Math.max(scheduled, asked), gone: false };
}

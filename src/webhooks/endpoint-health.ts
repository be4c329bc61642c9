import { isoAt } from '../core/runtime.js';
import type {
  Storage,
  WebhookAttemptRecord,
  WebhookDeliveryFilter,
  WebhookEndpointDisabledReason,
  WebhookEndpointRecord,
} from '../core/storage/index.js';
import type { WebhookEndpointActivity } from '../core/storage/webhooks.js';

/** How far back an endpoint's health counts: 24 hours, one bar an hour. */
const HOURS = 24;
const HOUR_MS = 3_600_000;
/** How many of the latest failed attempts it shows. */
const FAILURES = 5;

/** One failed attempt, as an endpoint's health lists it. */
export interface WebhookFailure {
  readonly deliveryId: string;
  readonly eventType: string;
  readonly startedAt: string;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
}

/** An endpoint's latest attempt: when, and how it ended. */
export interface WebhookLastAttempt {
  readonly deliveryId: string;
  readonly startedAt: string;
  readonly succeeded: boolean;
  readonly statusCode: number | null;
  readonly error: string | null;
}

/** Attempts of one hour of the window. */
export interface WebhookHour {
  /** Start of the hour (ISO). */
  readonly start: string;
  readonly succeeded: number;
  readonly failed: number;
}

/** An endpoint's attempts of the last 24 hours and its latest attempt: what its list row shows. */
export interface WebhookEndpointSummary {
  readonly endpointId: string;
  /** Attempts started in the last 24 hours that succeeded. */
  readonly succeeded: number;
  /** Attempts started in the last 24 hours that failed (retried or not). */
  readonly failed: number;
  /** `succeeded / (succeeded + failed)`, from 0 to 1; null when there was no attempt. */
  readonly successRate: number | null;
  readonly lastAttempt: WebhookLastAttempt | null;
  /** The 24 hours of the window, oldest first. */
  readonly hours: readonly WebhookHour[];
}

/** How an endpoint has been doing: attempts and deliveries of the last 24 hours, the queue now, the latest failures. */
export interface WebhookEndpointHealth {
  /** Start of the window (ISO): 24 hours before now. */
  readonly since: string;
  /** Deliveries created since `since` that succeeded. */
  readonly delivered: number;
  /** Deliveries created since `since` that are dead (gave up). */
  readonly failed: number;
  /** Deliveries waiting to be sent or retried now, whenever created (failed ones included). */
  readonly pending: number;
  /** Attempts started since `since` that succeeded. */
  readonly attemptsSucceeded: number;
  /** Attempts started since `since` that failed, whether their delivery is retried or dead. */
  readonly attemptsFailed: number;
  /** `attemptsSucceeded / (attemptsSucceeded + attemptsFailed)`, from 0 to 1; null when none was made. */
  readonly successRate: number | null;
  /** The latest attempt, whenever it was; null for none. */
  readonly lastAttempt: WebhookLastAttempt | null;
  /** The attempts of each hour of the window, oldest first (24). */
  readonly hours: readonly WebhookHour[];
  /** The latest failed attempts (of any delivery, retried or not), newest first, at most 5. */
  readonly lastFailures: readonly WebhookFailure[];
  /** Why the endpoint is disabled; null while enabled. */
  readonly disabledReason: WebhookEndpointDisabledReason | null;
}

/** The start of the window at `now`: 24 whole hours of bars ending with the current one. */
function windowStart(now: number): number {
  return now - HOURS * HOUR_MS;
}

function lastAttemptOf(a: WebhookAttemptRecord | null): WebhookLastAttempt | null {
  if (!a) return null;
  const { deliveryId, succeeded, statusCode, error } = a;
  return { deliveryId, startedAt: isoAt(a.startedAt), succeeded, statusCode, error };
}

function summaryOf(activity: WebhookEndpointActivity, since: number): WebhookEndpointSummary {
  const hours = Array.from({ length: HOURS }, (_, hour) => ({
    start: isoAt(since + hour * HOUR_MS),
    succeeded: 0,
    failed: 0,
  }));
  let succeeded = 0;
  let failed = 0;
  for (const h of activity.hours) {
    // The bar of the very last millisecond of the window is the 24th.
    const bar = hours[Math.min(h.hour, HOURS - 1)];
    if (!bar) continue;
    bar.succeeded += h.succeeded;
    bar.failed += h.failed;
    succeeded += h.succeeded;
    failed += h.failed;
  }
  return {
    endpointId: activity.endpointId,
    succeeded,
    failed,
    successRate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
    lastAttempt: lastAttemptOf(activity.latest),
    hours,
  };
}

/** Each endpoint's {@link WebhookEndpointSummary} at `now` (epoch ms), in the order given, in one read. */
export async function endpointSummaries(
  storage: Storage,
  endpointIds: readonly string[],
  now: number,
): Promise<WebhookEndpointSummary[]> {
  const since = windowStart(now);
  const found = await storage.webhooks.attempts.activity(endpointIds, since);
  return found.map((a) => summaryOf(a, since));
}

/** The {@link WebhookEndpointHealth} of an endpoint at `now` (epoch ms), from the delivery log's counts. */
export async function endpointHealth(
  storage: Storage,
  endpoint: WebhookEndpointRecord,
  now: number,
): Promise<WebhookEndpointHealth> {
  const { deliveries, attempts } = storage.webhooks;
  const since = windowStart(now);
  const count = async (filter: WebhookDeliveryFilter): Promise<number> =>
    (await deliveries.list({ endpointId: endpoint.id, ...filter }, { offset: 0, limit: 1 })).total;
  const [delivered, failed, pending, failures, [summary]] = await Promise.all([
    count({ status: 'succeeded', createdFrom: since }),
    count({ status: 'dead', createdFrom: since }),
    count({ status: 'pending' }),
    attempts.listFailures(endpoint.id, FAILURES),
    endpointSummaries(storage, [endpoint.id], now),
  ]);
  const ids = [...new Set(failures.map((a) => a.deliveryId))];
  const found = await Promise.all(ids.map((id) => deliveries.get(id)));
  const eventTypes = new Map(found.flatMap((d) => (d ? [[d.id, d.eventType] as const] : [])));
  // An attempt whose delivery was pruned meanwhile has nothing left to link to.
  const lastFailures = failures.flatMap((a) => {
    const eventType = eventTypes.get(a.deliveryId);
    if (eventType === undefined) return [];
    const { deliveryId, startedAt, statusCode, error, responseExcerpt } = a;
    return [{ deliveryId, eventType, startedAt: isoAt(startedAt), statusCode, error, responseExcerpt }];
  });
  return {
    since: isoAt(since),
    delivered,
    failed,
    pending,
    attemptsSucceeded: summary!.succeeded,
    attemptsFailed: summary!.failed,
    successRate: summary!.successRate,
    lastAttempt: summary!.lastAttempt,
    hours: summary!.hours,
    lastFailures,
    disabledReason: endpoint.disabledReason,
  };
}

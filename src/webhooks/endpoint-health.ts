import { isoAt } from '../core/runtime.js';
import type {
  Storage,
  WebhookDeliveryFilter,
  WebhookEndpointDisabledReason,
  WebhookEndpointRecord,
} from '../core/storage/index.js';

/** How far back an endpoint's health counts deliveries: 24 hours. */
const WINDOW_MS = 24 * 3_600_000;
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

/** How an endpoint has been doing: deliveries of the last 24 hours, the queue now, the latest failures. */
export interface WebhookEndpointHealth {
  /** Start of the window (ISO): 24 hours before now. */
  readonly since: string;
  /** Deliveries created since `since` that succeeded. */
  readonly delivered: number;
  /** Deliveries created since `since` that are dead (gave up). */
  readonly failed: number;
  /** Deliveries waiting to be sent or retried now, whenever created. */
  readonly pending: number;
  /** `delivered / (delivered + failed)`, from 0 to 1; null when neither happened. */
  readonly successRate: number | null;
  /** The latest failed attempts (of any delivery, retried or not), newest first, at most 5. */
  readonly lastFailures: readonly WebhookFailure[];
  /** Why the endpoint is disabled; null while enabled. */
  readonly disabledReason: WebhookEndpointDisabledReason | null;
}

/** The {@link WebhookEndpointHealth} of an endpoint at `now` (epoch ms), from the delivery log's counts. */
export async function endpointHealth(
  storage: Storage,
  endpoint: WebhookEndpointRecord,
  now: number,
): Promise<WebhookEndpointHealth> {
  const { deliveries, attempts } = storage.webhooks;
  const since = now - WINDOW_MS;
  const count = async (filter: WebhookDeliveryFilter): Promise<number> =>
    (await deliveries.list({ endpointId: endpoint.id, ...filter }, { offset: 0, limit: 1 })).total;
  const [delivered, failed, pending, failures] = await Promise.all([
    count({ status: 'succeeded', createdFrom: since }),
    count({ status: 'dead', createdFrom: since }),
    count({ status: 'pending' }),
    attempts.listFailures(endpoint.id, FAILURES),
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
    successRate: delivered + failed === 0 ? null : delivered / (delivered + failed),
    lastFailures,
    disabledReason: endpoint.disabledReason,
  };
}

import { SwitchboardError } from '../../core/errors.js';
import type {
  WebhookAttemptOutcome,
  WebhookAttemptRecord,
  WebhookAttemptStore,
  WebhookDeliveryFilter,
  WebhookDeliveryRecord,
  WebhookDeliveryStore,
  WebhookEndpointRecord,
  WebhookEndpointStore,
  WebhookFinish,
  WebhookSigningKeyRecord,
  WebhookStores,
} from '../../core/storage/index.js';
import { sealingEndpointHeaders } from '../../core/storage/sealed-endpoint-headers.js';
import { sealingSigningKeys } from '../../core/storage/sealed-signing-keys.js';
import type { Sealer } from '../../internal/sealer.js';
import { createDeliveryQueue, type DeliveryQueue } from './delivery-queue.js';
import { eraseDeliveries, erasedAttempt, overtaken } from './erasure.js';
import { heldSubjects } from './held-subjects.js';
import { byTimeThenId, type Journal, put, remove } from './journal.js';
import { memorySigningKeyStore } from './webhook-signing-keys.js';

export interface WebhookState {
  readonly endpoints: Map<string, WebhookEndpointRecord>;
  readonly deliveries: Map<string, WebhookDeliveryRecord>;
  /** `<eventId> <endpointId>` → delivery id: the unique index. */
  readonly byEventAndEndpoint: Map<string, string>;
  readonly attempts: Map<string, readonly WebhookAttemptRecord[]>;
  /** The order attempts were recorded in (PostgreSQL's `seq`): a rolled-back one simply drops out. */
  readonly attemptOrder: { readonly of: WeakMap<WebhookAttemptRecord, number>; last: number };
  /** The pending deliveries by due time: what claims read instead of every delivery ever made. */
  readonly queue: DeliveryQueue;
  /** The deployment's signing keys by id, their private keys sealed when an encryption key is set. */
  readonly signingKeys: Map<string, WebhookSigningKeyRecord>;
  /** Whether the outbox's copy of an event is a tombstone (its client erased): see `erase`. */
  readonly erasedEvent: (eventId: string) => boolean;
}

/**
 * An empty webhook state. `unrelayedBefore` tells the queue whether an earlier event of a subject is
 * still in the outbox (an ordered endpoint's later delivery then waits; see `claimDue`).
 */
export function createWebhookState(
  erasedEvent: (eventId: string) => boolean = () => false,
  unrelayedBefore: (subject: string, sequence: number) => boolean = () => false,
): WebhookState {
  const deliveries = new Map<string, WebhookDeliveryRecord>();
  const endpoints = new Map<string, WebhookEndpointRecord>();
  const ordered = (id: string): boolean => endpoints.get(id)?.ordering === 'subject';
  return {
    endpoints,
    deliveries,
    byEventAndEndpoint: new Map(),
    attempts: new Map(),
    attemptOrder: { of: new WeakMap(), last: 0 },
    queue: createDeliveryQueue(deliveries, { ordered, unrelayedBefore }),
    signingKeys: new Map(),
    erasedEvent,
  };
}

const byCreation = byTimeThenId<WebhookEndpointRecord>((e) => e.createdAt);
const newestFirst = byTimeThenId<WebhookDeliveryRecord>((d) => d.createdAt);
const uniqueKey = (eventId: string, endpointId: string): string => `${eventId} ${endpointId}`;

/**
 * The reference implementation. Every check-then-write runs without an `await` in between, so it is
 * atomic on the event loop; writes go through the journal so transactions can take them back.
 */
export function memoryWebhookStores(state: WebhookState, journal: Journal, sealer?: Sealer): WebhookStores {
  return {
    endpoints: sealingEndpointHeaders(endpointStore(state, journal), sealer),
    deliveries: deliveryStore(state, journal),
    attempts: attemptStore(state, journal),
    signingKeys: sealingSigningKeys(memorySigningKeyStore(state.signingKeys, journal), sealer),
  };
}

function saveEndpoint(state: WebhookState, journal: Journal, endpoint: WebhookEndpointRecord) {
  const frozen = Object.freeze({ ...endpoint });
  put(journal, state.endpoints, endpoint.id, frozen);
  return frozen;
}

function insertAttempt(state: WebhookState, journal: Journal, given: WebhookAttemptRecord): void {
  // An attempt that ends after its delivery was erased (it was in flight) keeps none of its texts.
  const attempt = state.deliveries.get(given.deliveryId)?.erasedAt != null ? erasedAttempt(given) : given;
  const list = state.attempts.get(attempt.deliveryId) ?? [];
  const headers = attempt.requestHeaders && Object.freeze({ ...attempt.requestHeaders });
  const answered = attempt.responseHeaders && Object.freeze({ ...attempt.responseHeaders });
  const record = Object.freeze({ ...attempt, requestHeaders: headers, responseHeaders: answered });
  state.attemptOrder.of.set(record, ++state.attemptOrder.last);
  put(journal, state.attempts, attempt.deliveryId, [...list, record]);
}

function endpointStore(state: WebhookState, journal: Journal): WebhookEndpointStore {
  const save = (endpoint: WebhookEndpointRecord): WebhookEndpointRecord =>
    saveEndpoint(state, journal, endpoint);
  return {
    async get(id) {
      return state.endpoints.get(id) ?? null;
    },
    async list(range) {
      const all = [...state.endpoints.values()].sort(byCreation);
      return { items: all.slice(range.offset, range.offset + range.limit), total: all.length };
    },
    async listEnabled() {
      return [...state.endpoints.values()].filter((e) => e.enabled).sort(byCreation);
    },
    async insert(endpoint) {
      if (state.endpoints.has(endpoint.id)) {
        throw new SwitchboardError('conflict', `Webhook endpoint ${endpoint.id} already exists.`);
      }
      save(endpoint);
    },
    async update(endpoint, expectedVersion) {
      const current = state.endpoints.get(endpoint.id);
      if (!current || current.version !== expectedVersion) return false;
      save(endpoint);
      // No longer ordered: the deliveries waiting behind their subject's first go at once.
      if (current.ordering === 'subject' && endpoint.ordering !== 'subject') state.queue.unpark(endpoint.id);
      return true;
    },
    async delete(id) {
      if (!remove(journal, state.endpoints, id)) return false;
      for (const delivery of [...state.deliveries.values()]) {
        if (delivery.endpointId !== id) continue;
        // Recorded first, so a rollback re-indexes after the record itself is restored.
        journal.record(() => state.queue.track(delivery));
        remove(journal, state.deliveries, delivery.id);
        state.queue.forget(delivery.id);
        remove(journal, state.byEventAndEndpoint, uniqueKey(delivery.eventId, id));
        remove(journal, state.attempts, delivery.id);
      }
      return true;
    },
    async recordOutcome(id, { ok, at }) {
      const current = state.endpoints.get(id);
      if (!current) return null;
      const failingSince = ok ? null : (current.failingSince ?? at);
      if (failingSince === current.failingSince) return current;
      return save({ ...current, failingSince });
    },
    async disable(id, reason, at) {
      const current = state.endpoints.get(id);
      if (!current?.enabled) return false;
      save({
        ...current,
        enabled: false,
        disabledReason: reason,
        updatedAt: at,
        version: current.version + 1,
      });
      return true;
    },
  };
}

function matches(filter: WebhookDeliveryFilter, d: WebhookDeliveryRecord): boolean {
  return (
    (filter.endpointId === undefined || d.endpointId === filter.endpointId) &&
    (filter.status === undefined || d.status === filter.status) &&
    (filter.eventType === undefined || d.eventType === filter.eventType) &&
    (filter.eventId === undefined || d.eventId === filter.eventId) &&
    (filter.createdFrom === undefined || d.createdAt >= filter.createdFrom) &&
    (filter.createdBefore === undefined || d.createdAt < filter.createdBefore)
  );
}

function deliveryStore(state: WebhookState, journal: Journal): WebhookDeliveryStore {
  const save = (delivery: WebhookDeliveryRecord): void => {
    const previous = state.deliveries.get(delivery.id);
    // Recorded first, so a rollback re-indexes after the record itself is restored.
    journal.record(() => (previous ? state.queue.track(previous) : state.queue.forget(delivery.id)));
    const record = Object.freeze({ ...delivery });
    put(journal, state.deliveries, delivery.id, record);
    state.queue.track(record);
  };
  const finish = (id: string, lease: WebhookFinish['lease'], outcome: WebhookAttemptOutcome): boolean => {
    const current = state.deliveries.get(id);
    if (!current || current.leasedBy !== lease.workerId || current.attempts !== lease.attempts) return false;
    save({
      ...current,
      status: outcome.status,
      attempts: outcome.attempts,
      nextAttemptAt: outcome.nextAttemptAt,
      lastStatusCode: outcome.lastStatusCode,
      // An attempt in flight when its client was erased leaves no error text on the tombstone.
      lastError: current.erasedAt != null ? null : outcome.lastError,
      leasedBy: null,
      leaseUntil: null,
      updatedAt: outcome.at,
    });
    return true;
  };
  const create = (delivery: WebhookDeliveryRecord): boolean => {
    const key = uniqueKey(delivery.eventId, delivery.endpointId);
    if (state.byEventAndEndpoint.has(key) || overtaken(state, delivery)) return false;
    if (state.deliveries.has(delivery.id)) throw idTaken(delivery.id);
    save(delivery);
    put(journal, state.byEventAndEndpoint, key, delivery.id);
    return true;
  };
  return {
    async createIfAbsent(delivery) {
      return create(delivery);
    },
    async createManyIfAbsent(deliveries) {
      // Checked before any is written, so a conflict leaves none behind.
      for (const d of deliveries) {
        if (!state.byEventAndEndpoint.has(uniqueKey(d.eventId, d.endpointId)) && state.deliveries.has(d.id))
          throw idTaken(d.id);
      }
      let inserted = 0;
      for (const d of deliveries) if (create(d)) inserted++;
      return inserted;
    },
    async get(id) {
      return state.deliveries.get(id) ?? null;
    },
    async countPending() {
      return state.queue.pending();
    },
    async list(filter, range) {
      const found = [...state.deliveries.values()].filter((d) => matches(filter, d));
      found.sort((a, b) => newestFirst(b, a));
      return { items: found.slice(range.offset, range.offset + range.limit), total: found.length };
    },
    async claimDue({ now, limit, leaseMs, workerId, maxPerEndpoint, endpointLimits }) {
      const leaseUntil = now + leaseMs;
      return state.queue.claim({
        now,
        limit,
        maxPerEndpoint,
        endpointLimits,
        lease: (d) => {
          const next = { ...d, leasedBy: workerId, leaseUntil };
          save(next);
          return next;
        },
      });
    },
    async finish(id, lease, outcome) {
      return finish(id, lease, outcome);
    },
    async finishMany(finishes) {
      return finishes.filter((f) => finish(f.id, f.lease, f.outcome)).map((f) => f.id);
    },
    async finishSucceeded(finishes, attempts) {
      if (attempts.some((a) => !a.succeeded))
        throw new Error('finishSucceeded takes succeeded attempts only; write failures in a transaction.');
      // No await in between: atomic on the event loop.
      const written = new Set(finishes.filter((f) => finish(f.id, f.lease, f.outcome)).map((f) => f.id));
      const healed = new Set<string>();
      for (const attempt of attempts) {
        if (!written.has(attempt.deliveryId)) continue;
        insertAttempt(state, journal, attempt);
        healed.add(attempt.endpointId);
      }
      for (const id of healed) {
        const endpoint = state.endpoints.get(id);
        if (endpoint && endpoint.failingSince !== null)
          saveEndpoint(state, journal, { ...endpoint, failingSince: null });
      }
      return [...written];
    },
    async release(id, workerId) {
      const current = state.deliveries.get(id);
      if (!current || current.leasedBy !== workerId) return false;
      save({ ...current, leasedBy: null, leaseUntil: null });
      return true;
    },
    async requeue(filter, now) {
      const ids = filter.ids ? new Set(filter.ids) : null;
      let count = 0;
      for (const d of [...state.deliveries.values()]) {
        if (d.status === 'pending' || (ids && !ids.has(d.id)) || !matches(filter, d)) continue;
        save({
          ...d,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: now,
          leasedBy: null,
          leaseUntil: null,
          updatedAt: now,
        });
        count++;
      }
      return count;
    },
    async expedite(filter, now) {
      const ids = filter.ids ? new Set(filter.ids) : null;
      let count = 0;
      for (const d of [...state.deliveries.values()]) {
        if (d.status !== 'pending' || d.attempts < 1 || (ids && !ids.has(d.id)) || !matches(filter, d))
          continue;
        if (d.leaseUntil !== null && d.leaseUntil > now) continue;
        save({ ...d, nextAttemptAt: now, leasedBy: null, leaseUntil: null, updatedAt: now });
        count++;
      }
      return count;
    },
    async prune(before, { now } = {}) {
      let count = 0;
      for (const d of [...state.deliveries.values()]) {
        const days = now === undefined ? null : state.endpoints.get(d.endpointId)?.logRetentionDays;
        if (d.status === 'pending' || d.updatedAt >= (days ? now! - days * 86_400_000 : before)) continue;
        remove(journal, state.deliveries, d.id);
        state.queue.forget(d.id);
        remove(journal, state.byEventAndEndpoint, uniqueKey(d.eventId, d.endpointId));
        remove(journal, state.attempts, d.id);
        count++;
      }
      return count;
    },
    async erase(erasure) {
      return eraseDeliveries(state, journal, save, erasure);
    },
    async listHeld(endpointId, limit) {
      return heldSubjects(state.queue.subjects(endpointId), limit);
    },
    async skip(id, reason, at) {
      const current = state.deliveries.get(id);
      if (current?.status !== 'pending') return null;
      const next = {
        ...current,
        status: 'dead' as const,
        nextAttemptAt: null,
        leasedBy: null,
        leaseUntil: null,
        lastError: reason,
        updatedAt: at,
      };
      save(next);
      return state.deliveries.get(id)!;
    },
    async announceHeld(id, at) {
      const current = state.deliveries.get(id);
      if (current?.status !== 'pending' || current.heldAnnouncedAt != null) return false;
      save({ ...current, heldAnnouncedAt: at });
      return true;
    },
  };
}

function attemptStore(state: WebhookState, journal: Journal): WebhookAttemptStore {
  const insert = (attempt: WebhookAttemptRecord): void => insertAttempt(state, journal, attempt);
  const order = (a: WebhookAttemptRecord): number => state.attemptOrder.of.get(a) ?? 0;
  return {
    async insert(attempt) {
      insert(attempt);
    },
    async insertMany(attempts) {
      for (const attempt of attempts) insert(attempt);
    },
    async listByDelivery(deliveryId) {
      return [...(state.attempts.get(deliveryId) ?? [])];
    },
    async listFailures(endpointId, limit) {
      // Every attempt is read: the reference adapter keeps no index per endpoint (PostgreSQL has one).
      const failed: WebhookAttemptRecord[] = [];
      for (const attempts of state.attempts.values())
        for (const a of attempts) if (a.endpointId === endpointId && !a.succeeded) failed.push(a);
      failed.sort((a, b) => (a.startedAt !== b.startedAt ? b.startedAt - a.startedAt : order(b) - order(a)));
      return failed.slice(0, limit);
    },
    async activity(endpointIds, since) {
      const wanted = new Set(endpointIds);
      const of = new Map<
        string,
        { hours: Map<number, { succeeded: number; failed: number }>; latest: WebhookAttemptRecord | null }
      >();
      for (const id of wanted) of.set(id, { hours: new Map(), latest: null });
      const later = (a: WebhookAttemptRecord, b: WebhookAttemptRecord | null): boolean =>
        b === null || a.startedAt > b.startedAt || (a.startedAt === b.startedAt && order(a) > order(b));
      for (const attempts of state.attempts.values())
        for (const a of attempts) {
          const found = of.get(a.endpointId);
          if (!found) continue;
          if (later(a, found.latest)) found.latest = a;
          if (a.startedAt < since) continue;
          const hour = Math.floor((a.startedAt - since) / 3_600_000);
          const counts = found.hours.get(hour) ?? { succeeded: 0, failed: 0 };
          if (a.succeeded) counts.succeeded++;
          else counts.failed++;
          found.hours.set(hour, counts);
        }
      return [...of.entries()].map(([endpointId, { hours, latest }]) => ({
        endpointId,
        hours: [...hours.entries()].sort(([a], [b]) => a - b).map(([hour, c]) => ({ hour, ...c })),
        latest,
      }));
    },
  };
}

function idTaken(id: string): SwitchboardError {
  return new SwitchboardError('conflict', `Webhook delivery ${id} already exists.`);
}

import { type Context, context } from '@opentelemetry/api';
import { newEvent } from '../core/domain/context.js';
import { type Clock, type IdGenerator, isoOrNull, type Logger } from '../core/runtime.js';
import type {
  Storage,
  Stores,
  WebhookAttemptOutcome,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookFinish,
} from '../core/storage/index.js';
import type { Decision } from './decide.js';
import { WEBHOOK_DELIVERY_EXHAUSTED } from './payload.js';
import type { AttemptResult } from './send.js';

/**
 * How a claimed delivery ended, decided by the dispatcher: an attempt and what follows it (succeeded,
 * due again, dead); or, without an attempt, `deferred` (over the receiver's pace: due again at
 * `nextAttemptAt`, no attempt spent) or `dropped` (its endpoint disabled or deleted: dead).
 */
export type Outcome =
  | {
      readonly kind: 'attempted';
      readonly delivery: WebhookDeliveryRecord;
      readonly endpoint: WebhookEndpointRecord;
      readonly result: AttemptResult;
      readonly decision: Decision;
      /** Epoch ms. */
      readonly startedAt: number;
    }
  | { readonly kind: 'deferred'; readonly delivery: WebhookDeliveryRecord; readonly nextAttemptAt: number }
  | { readonly kind: 'dropped'; readonly delivery: WebhookDeliveryRecord; readonly reason: string };

/** Options of {@link createOutcomeWriter}. */
export interface OutcomeWriterOptions {
  readonly storage: Pick<Storage, 'transaction' | 'webhooks'>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The dispatcher's worker id (named at first use). */
  readonly workerId: () => string;
  /** An endpoint failing without a success for this long is disabled. */
  readonly disableAfterMs: number;
  /** Called after an outcome put an event in the outbox (an endpoint disabled, a delivery exhausted). */
  readonly onCommit?: () => void;
  /** Batches written side by side (default 2). */
  readonly writers?: number;
}

/**
 * Writes an {@link Outcome}; resolves once it is committed, `recorded` false when the lease had been
 * lost meanwhile (another worker took the delivery, and its outcome stands).
 */
export type OutcomeWriter = (outcome: Outcome) => Promise<{ readonly recorded: boolean }>;

/** An outcome as queued: when it was written (epoch ms) and in which trace (the attempt's span). */
interface Queued {
  readonly outcome: Outcome;
  readonly now: number;
  readonly trace: Context;
  readonly resolve: (value: { recorded: boolean }) => void;
  readonly reject: (error: unknown) => void;
}

type Attempted = Queued & { readonly outcome: Extract<Outcome, { kind: 'attempted' }> };

/**
 * The one way a delivery's outcome is written, whatever it is. Outcomes that arrive while a batch is
 * being written go into the next one, which costs one write instead of one per attempt: without a
 * failed attempt, `finishSucceeded` (one statement on PostgreSQL); with one, a transaction with a
 * statement per kind of row (deliveries, attempts, each endpoint's state). Should a batch
 * fail, its outcomes are written again one by one, so one that cannot be written fails alone (its lease
 * then expires and it is sent again, at least once). An endpoint it disables is announced with a
 * `webhook_endpoint.disabled` event, and a delivery it gives up on with `webhook_delivery.exhausted`,
 * in the same transaction, in the trace of the attempt that did it.
 */
export function createOutcomeWriter(options: OutcomeWriterOptions): OutcomeWriter {
  const { storage, clock, ids, logger, workerId } = options;
  const writers = options.writers ?? 2;
  let queue: Queued[] = [];
  let writing = 0;

  function finishOf({ outcome, now }: Queued): WebhookFinish {
    const { delivery } = outcome;
    const lease = { workerId: workerId(), attempts: delivery.attempts };
    return { id: delivery.id, lease, outcome: stateAfter(outcome, now) };
  }

  function attemptOf({
    outcome: { delivery, endpoint, result, startedAt },
  }: Attempted): WebhookAttemptRecord {
    return {
      id: ids('wha'),
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      number: delivery.attempts + 1,
      startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      responseExcerpt: result.responseExcerpt,
      error: result.error,
      succeeded: result.ok,
      requestHeaders: result.requestHeaders,
      responseHeaders: result.responseHeaders,
    };
  }

  /** Writes a batch in `tx`; returns the ids recorded and whether it put an event in the outbox. */
  async function writeBatch(tx: Stores, batch: readonly Queued[]) {
    const recorded = new Set(await tx.webhooks.deliveries.finishMany(batch.map(finishOf)));
    const attempted = batch.filter(
      (q): q is Attempted => q.outcome.kind === 'attempted' && recorded.has(q.outcome.delivery.id),
    );
    await tx.webhooks.attempts.insertMany(attempted.map(attemptOf));
    let announced = false;
    // Endpoint by endpoint in id order, each one's row and then its events' subject (the endpoint):
    // batches written side by side take those locks in one order.
    for (const outcomes of byEndpoint(attempted)) {
      if (await recordEndpointState(tx, outcomes)) announced = true;
      if (await announceExhausted(tx, outcomes)) announced = true;
    }
    return { recorded, announced };
  }

  /**
   * A `webhook_delivery.exhausted` event for each delivery given up on after an attempt (its attempts
   * used up, or an answer not worth another, but 410 Gone); none for deliveries of that event itself,
   * so an operator endpoint that fails cannot feed itself events forever.
   */
  async function announceExhausted(tx: Stores, outcomes: readonly Attempted[]): Promise<boolean> {
    let announced = false;
    for (const q of outcomes) {
      const { delivery, endpoint, decision, result } = q.outcome;
      // 410 Gone disables the endpoint, and that event says so.
      if (decision.status !== 'dead' || decision.gone || delivery.eventType === WEBHOOK_DELIVERY_EXHAUSTED)
        continue;
      const data = {
        id: delivery.id,
        endpointId: endpoint.id,
        url: endpoint.url,
        eventId: delivery.eventId,
        eventType: delivery.eventType,
        attempts: delivery.attempts + 1,
        lastStatusCode: result.statusCode,
        lastError: result.error ?? (result.ok ? null : `HTTP ${result.statusCode}`),
      };
      const event = context.with(q.trace, () =>
        newEvent({ clock, ids }, WEBHOOK_DELIVERY_EXHAUSTED, data, { subject: endpoint.id }),
      );
      await tx.outbox.append(event);
      announced = true;
    }
    return announced;
  }

  /**
   * An endpoint's state after its attempts in order: a success clears `failingSince`, the first failure
   * after the last success sets it; disabled on 410 or when failing for too long.
   */
  async function recordEndpointState(tx: Stores, outcomes: readonly Attempted[]): Promise<boolean> {
    const { endpoint } = outcomes[0]!.outcome;
    const lastSuccess = outcomes.findLastIndex((q) => q.outcome.result.ok);
    const firstFailure = outcomes.find((q, i) => i > lastSuccess && !q.outcome.result.ok);
    let after: WebhookEndpointRecord | null = null;
    if (lastSuccess >= 0) {
      after = await tx.webhooks.endpoints.recordOutcome(endpoint.id, {
        ok: true,
        at: outcomes[lastSuccess]!.now,
      });
    }
    if (firstFailure) {
      after = await tx.webhooks.endpoints.recordOutcome(endpoint.id, { ok: false, at: firstFailure.now });
    }
    const last = outcomes.at(-1)!;
    const failingFor = after?.failingSince != null ? last.now - after.failingSince : 0;
    const gone = outcomes.find((q) => q.outcome.decision.gone);
    const reason = gone ? 'gone' : failingFor >= options.disableAfterMs ? 'failing' : null;
    if (!reason || !(await tx.webhooks.endpoints.disable(endpoint.id, reason, last.now))) return false;
    const failingSince = isoOrNull(after?.failingSince ?? null);
    const data = { id: endpoint.id, url: endpoint.url, reason, failingSince };
    // Made in the trace of the attempt that disabled it: the receivers of this event join that trace.
    const event = context.with((gone ?? last).trace, () =>
      newEvent({ clock, ids }, 'webhook_endpoint.disabled', data, { subject: endpoint.id }),
    );
    await tx.outbox.append(event);
    logger.log('warn', 'webhook endpoint disabled', { endpointId: endpoint.id, gone: gone !== undefined });
    return true;
  }

  async function commit(batch: readonly Queued[]): Promise<void> {
    if (batch.every((q) => q.outcome.kind !== 'attempted' || q.outcome.result.ok)) {
      // Only a failure can disable an endpoint (and announce it): without one, a single atomic write.
      const attempts = batch.filter((q): q is Attempted => q.outcome.kind === 'attempted').map(attemptOf);
      const written = await storage.webhooks.deliveries.finishSucceeded(batch.map(finishOf), attempts);
      const recorded = new Set(written);
      for (const q of batch) q.resolve({ recorded: recorded.has(q.outcome.delivery.id) });
      return;
    }
    const { recorded, announced } = await storage.transaction((tx) => writeBatch(tx, batch));
    if (announced) options.onCommit?.();
    for (const q of batch) q.resolve({ recorded: recorded.has(q.outcome.delivery.id) });
  }

  async function write(): Promise<void> {
    writing++;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await commit(batch);
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else for (const q of batch) await commit([q]).catch(q.reject);
      }
    }
    writing--;
  }

  return (outcome) =>
    new Promise((resolve, reject) => {
      queue.push({ outcome, now: clock.now(), trace: context.active(), resolve, reject });
      if (writing < writers) void write();
    });
}

/**
 * Attempts grouped by endpoint, each group in the order given, the groups in endpoint id order: two
 * batches written side by side then lock endpoint rows in the same order and cannot deadlock.
 */
function byEndpoint(outcomes: readonly Attempted[]): Attempted[][] {
  const groups = new Map<string, Attempted[]>();
  for (const q of outcomes) {
    const group = groups.get(q.outcome.endpoint.id);
    if (group) group.push(q);
    else groups.set(q.outcome.endpoint.id, [q]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}

/** A delivery's state after an outcome, at `at`: what `finishMany` writes. */
function stateAfter(outcome: Outcome, at: number): WebhookAttemptOutcome {
  const { delivery } = outcome;
  switch (outcome.kind) {
    case 'deferred': {
      const { attempts, lastStatusCode, lastError } = delivery;
      return {
        status: 'pending',
        attempts,
        nextAttemptAt: outcome.nextAttemptAt,
        lastStatusCode,
        lastError,
        at,
      };
    }
    case 'dropped': {
      const { attempts } = delivery;
      return {
        status: 'dead',
        attempts,
        nextAttemptAt: null,
        lastStatusCode: null,
        lastError: outcome.reason,
        at,
      };
    }
    case 'attempted': {
      const { result, decision } = outcome;
      return {
        status: decision.status,
        attempts: delivery.attempts + 1,
        nextAttemptAt: decision.nextAttemptAt,
        lastStatusCode: result.statusCode,
        lastError: result.error ?? (result.ok ? null : `HTTP ${result.statusCode}`),
        at,
      };
    }
  }
}

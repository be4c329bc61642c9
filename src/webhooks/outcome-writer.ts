import { type IdGenerator, isoAt, type Logger } from '../core/runtime.js';
import type { Storage, Stores, WebhookDeliveryRecord, WebhookEndpointRecord } from '../core/storage/index.js';
import type { Decision } from './decide.js';
import type { AttemptResult } from './send.js';

/** One attempt, decided, waiting to be written. */
export interface Outcome {
  readonly delivery: WebhookDeliveryRecord;
  readonly endpoint: WebhookEndpointRecord;
  readonly result: AttemptResult;
  readonly decision: Decision;
  readonly startedAt: string;
  /** When it ended: epoch ms and ISO. */
  readonly now: number;
  readonly at: string;
}

export interface OutcomeWriterOptions {
  readonly storage: Pick<Storage, 'transaction'>;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The dispatcher's worker id (named at first use). */
  readonly workerId: () => string;
  /** An endpoint failing without a success for this long is disabled. */
  readonly disableAfterMs: number;
  /** Called after an endpoint was disabled (an event is in the outbox). */
  readonly onCommit?: () => void;
  /** Batches written side by side (default 2). */
  readonly writers?: number;
}

/** Resolves once the outcome is committed: `recorded` false when the lease had been lost meanwhile. */
export type OutcomeWriter = (outcome: Outcome) => Promise<{ readonly recorded: boolean }>;

interface Queued {
  readonly outcome: Outcome;
  readonly resolve: (value: { recorded: boolean }) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Writes attempt outcomes in batches: those that arrive while a batch is being written go into the next
 * one, which costs one transaction with a statement per kind of row (deliveries, attempts, each
 * endpoint's state) instead of a transaction per attempt. Should a batch fail, its outcomes are written
 * again one by one, so one that cannot be written fails alone (its lease then expires and it is sent
 * again, at least once).
 */
export function createOutcomeWriter(options: OutcomeWriterOptions): OutcomeWriter {
  const { storage, ids, logger, workerId } = options;
  const writers = options.writers ?? 2;
  let queue: Queued[] = [];
  let writing = 0;

  /** Writes a batch in `tx`; returns the ids recorded and the endpoints it disabled. */
  async function writeBatch(tx: Stores, batch: readonly Outcome[]) {
    const recorded = new Set(
      await tx.webhooks.deliveries.finishMany(
        batch.map(({ delivery, result, decision, at }) => ({
          id: delivery.id,
          lease: { workerId: workerId(), attempts: delivery.attempts },
          outcome: {
            status: decision.status,
            attempts: delivery.attempts + 1,
            nextAttemptAt: decision.nextAttemptAt === null ? null : isoAt(decision.nextAttemptAt),
            lastStatusCode: result.statusCode,
            lastError: result.error ?? (result.ok ? null : `HTTP ${result.statusCode}`),
            at,
          },
        })),
      ),
    );
    const written = batch.filter((o) => recorded.has(o.delivery.id));
    await tx.webhooks.attempts.insertMany(
      written.map(({ delivery, endpoint, result, startedAt }) => ({
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
      })),
    );
    const disabled: WebhookEndpointRecord[] = [];
    for (const outcomes of byEndpoint(written)) {
      if (await recordEndpointState(tx, outcomes)) disabled.push(outcomes[0]!.endpoint);
    }
    return { recorded, disabled };
  }

  /**
   * An endpoint's state after its outcomes in order: a success clears `failingSince`, the first failure
   * after the last success sets it; disabled on 410 or when failing for too long.
   */
  async function recordEndpointState(tx: Stores, outcomes: readonly Outcome[]): Promise<boolean> {
    const { endpoint } = outcomes[0]!;
    const lastSuccess = outcomes.findLastIndex((o) => o.result.ok);
    const firstFailure = outcomes.find((o, i) => i > lastSuccess && !o.result.ok);
    let after: WebhookEndpointRecord | null = null;
    if (lastSuccess >= 0) {
      after = await tx.webhooks.endpoints.recordOutcome(endpoint.id, {
        ok: true,
        at: outcomes[lastSuccess]!.at,
      });
    }
    if (firstFailure) {
      after = await tx.webhooks.endpoints.recordOutcome(endpoint.id, { ok: false, at: firstFailure.at });
    }
    const last = outcomes.at(-1)!;
    const failingFor = after?.failingSince ? last.now - Date.parse(after.failingSince) : 0;
    const gone = outcomes.some((o) => o.decision.gone);
    const reason = gone ? 'gone' : failingFor >= options.disableAfterMs ? 'failing' : null;
    if (!reason || !(await tx.webhooks.endpoints.disable(endpoint.id, reason, last.at))) return false;
    await tx.outbox.append({
      id: ids('evt'),
      type: 'webhook_endpoint.disabled',
      occurredAt: last.at,
      data: { id: endpoint.id, url: endpoint.url, reason, failingSince: after?.failingSince ?? null },
    });
    logger.log('warn', 'webhook endpoint disabled', { endpointId: endpoint.id, gone });
    return true;
  }

  async function commit(batch: readonly Queued[]): Promise<void> {
    const { recorded, disabled } = await storage.transaction((tx) =>
      writeBatch(
        tx,
        batch.map((q) => q.outcome),
      ),
    );
    if (disabled.length > 0) options.onCommit?.();
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
      queue.push({ outcome, resolve, reject });
      if (writing < writers) void write();
    });
}

/**
 * Outcomes grouped by endpoint, each group in the order given, the groups in endpoint id order: two
 * batches written side by side then lock endpoint rows in the same order and cannot deadlock.
 */
function byEndpoint(outcomes: readonly Outcome[]): Outcome[][] {
  const groups = new Map<string, Outcome[]>();
  for (const outcome of outcomes) {
    const group = groups.get(outcome.endpoint.id);
    if (group) group.push(outcome);
    else groups.set(outcome.endpoint.id, [outcome]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}

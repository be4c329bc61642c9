import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../core/storage/index.js';
import { contextOfTraceparent, inSpan, traceparentOf } from '../core/telemetry/index.js';
import { createWorkerLoop } from '../core/worker-loop.js';
import { checkDestination } from '../http/outbound.js';
import { maskedHeaders } from './custom-headers.js';
import { decide } from './decide.js';
import type { WebhookDispatcherOptions, WebhookDispatcherRuntime } from './dispatcher-options.js';
import { createEndpointLimits } from './endpoint-limits.js';
import { createHeldWatch } from './held-watch.js';
import { createOutcomeWriter } from './outcome-writer.js';
import { createPoster } from './post.js';
import { endpointRetrySchedule, retrySchedule } from './schedule.js';
import { type AttemptResult, sendAttempt } from './send.js';
import { signWebhook } from './sign.js';
import { createWebhookKeyRing } from './signing-keys.js';

/**
 * Sends due deliveries: claims them with a lease, signs, posts, and writes the outcome to storage. It
 * runs on the worker loop every durable queue runs on (`core/worker-loop.ts`), one delivery per place.
 */
export interface WebhookDispatcher {
  readonly workerId: string;
  /**
   * Delivers everything due now (and what falls due meanwhile); resolves with the deliveries it
   * finished with (sent, or due later, or dead without an attempt). Stops claiming after a failure.
   */
  runOnce(): Promise<number>;
  /** Looks for due deliveries soon, if started; cheap to call after every fan-out. */
  kick(): void;
  /**
   * Works in the background until stopped: claims as deliveries end, and polls every `pollIntervalMs`;
   * after failures (the storage refusing to claim) the wait doubles, up to 30 s.
   */
  start(): void;
  /**
   * Stops claiming, lets attempts in flight finish for up to `graceMs` (default: the attempt timeout),
   * then aborts the rest and releases their claims so another worker takes them at once.
   */
  stop(options?: { readonly graceMs?: number }): Promise<void>;
}

/**
 * Creates a {@link WebhookDispatcher}; call `start` to poll, and `stop` on shutdown to hand its claims back.
 *
 * @example
 * const dispatcher = createWebhookDispatcher(runtime, { outbound: { resolveHost } });
 * dispatcher.start();
 * // on shutdown
 * await dispatcher.stop();
 */
export function createWebhookDispatcher(
  runtime: WebhookDispatcherRuntime,
  options: WebhookDispatcherOptions = {},
): WebhookDispatcher {
  // Background work, on the storage's own connections when it has them, so requests cannot starve it.
  const storage = runtime.storage.background ?? runtime.storage;
  const { clock, ids, logger, telemetry } = runtime;
  const poster = createPoster(runtime.fetch);
  const keyRing = options.keyRing ?? createWebhookKeyRing({ storage, clock, ids });
  const outbound = options.outbound ?? {};
  // Named at first use: an edge runtime refuses random values in a module's scope, where the
  // switchboard (and so this dispatcher) is often made.
  let named = options.workerId;
  const workerIdOf = (): string => (named ??= ids('wkr'));
  const schedule = retrySchedule({ attempts: options.attempts, delaysMs: options.delaysMs });
  const timeoutMs = options.timeoutMs ?? 15_000;
  const concurrency = options.concurrency ?? 64;
  const maxPerEndpoint = options.maxPerEndpoint ?? 4;
  const maxPerSecond = options.maxPerSecond;
  if (maxPerSecond !== undefined && !(maxPerSecond > 0))
    throw new RangeError(`Webhook maxPerSecond must be above 0 (got ${maxPerSecond}).`);
  const leaseMs = options.leaseMs ?? timeoutMs + 60_000;
  const random = options.random ?? Math.random;
  const writeOutcome = createOutcomeWriter({
    storage,
    clock,
    ids,
    logger,
    workerId: workerIdOf,
    disableAfterMs: options.disableAfterMs ?? 5 * 24 * 3_600_000,
    ...(options.onCommit ? { onCommit: options.onCommit } : {}),
  });
  const heldWatch = createHeldWatch({
    storage,
    clock,
    ids,
    logger,
    heldAfterMs: options.heldAfterMs ?? 15 * 60_000,
    ...(options.onCommit ? { onCommit: options.onCommit } : {}),
  });
  const stopPosts = (): void => poster.stop();
  const limits =
    options.adaptiveConcurrency === false
      ? undefined
      : createEndpointLimits({ initial: maxPerEndpoint, max: Math.floor((concurrency * 3) / 4) });

  /** Claims due deliveries, with one lookup per endpoint per claim shared by its deliveries. */
  async function claim(limit: number): Promise<Claimed[]> {
    const now = clock.now();
    // Now and then, in the background: ordered endpoints' subjects held too long are announced.
    heldWatch.maybeCheck(now);
    const claimed = await storage.webhooks.deliveries.claimDue({
      now,
      limit,
      leaseMs,
      workerId: workerIdOf(),
      maxPerEndpoint,
      ...(limits ? { endpointLimits: limits.caps() } : {}),
    });
    const endpoints = new Map<string, Promise<WebhookEndpointRecord | null>>();
    return claimed.map((delivery) => {
      let endpoint = endpoints.get(delivery.endpointId);
      if (!endpoint) {
        endpoint = storage.webhooks.endpoints.get(delivery.endpointId);
        endpoints.set(delivery.endpointId, endpoint);
      }
      return { delivery, endpoint };
    });
  }

  /** One claimed delivery: acknowledged with its outcome, or handed back when stopped mid-attempt. */
  async function deliver(claimed: readonly Claimed[], signal: AbortSignal): Promise<number> {
    const { delivery, endpoint: endpointOf } = claimed[0]!;
    try {
      const endpoint = await endpointOf;
      if (!endpoint?.enabled) {
        limits?.forget(delivery.endpointId);
        const reason = endpoint ? 'The endpoint is disabled.' : 'The endpoint was deleted.';
        await writeOutcome({ kind: 'dropped', delivery, reason });
        return 1;
      }
      // The endpoint's own pace, else the dispatcher's.
      const perSecond = endpoint.maxPerSecond ?? maxPerSecond;
      if (perSecond !== undefined) {
        const now = clock.now();
        // The receiver's own pace: over it, the delivery waits for its turn and spends no attempt.
        const turn = await storage.rateLimits.take(
          `webhook:${endpoint.id}`,
          // Evenly spaced, no burst: never more than maxPerSecond in any second.
          { limit: 1, windowMs: 1000 / perSecond },
          1,
          now,
        );
        if (!turn.allowed) {
          const nextAttemptAt = now + Math.max(1, turn.retryAfterMs);
          await writeOutcome({ kind: 'deferred', delivery, nextAttemptAt });
          wakeAt(nextAttemptAt);
          return 1;
        }
      }
      await attemptInSpan(delivery, endpoint, signal);
      return 1;
    } catch (error) {
      logger.log('error', 'webhook delivery failed unexpectedly; its lease will expire', {
        deliveryId: delivery.id,
        error: String(error),
      });
      return 0;
    }
  }

  /**
   * One span per attempt, in the trace of the request that caused the event; the outcome is written
   * (and logged) inside it, so the log line carries the trace id.
   */
  function attemptInSpan(
    delivery: WebhookDeliveryRecord,
    endpoint: WebhookEndpointRecord,
    signal: AbortSignal,
  ): Promise<void> {
    const spanOptions = { kind: SpanKind.CLIENT, parent: contextOfTraceparent(delivery.traceparent) };
    return inSpan(telemetry.tracer, 'switchboard.webhook.attempt', spanOptions, async (span) => {
      // Described only when it records: no URL parsed, nothing built for a span no one sees.
      if (span.isRecording())
        span.setAttributes({
          'http.request.method': 'POST',
          'server.address': new URL(endpoint.url).hostname,
          'switchboard.webhook.endpoint_id': endpoint.id,
          'switchboard.webhook.delivery_id': delivery.id,
          'switchboard.webhook.event_id': delivery.eventId,
          'switchboard.webhook.event_type': delivery.eventType,
          'switchboard.webhook.attempt': delivery.attempts + 1,
        });
      const now = clock.now();
      const startedAt = now;
      const { refused, address } = await checkDestination(endpoint.url, outbound);
      const result: AttemptResult = refused
        ? {
            ok: false,
            statusCode: null,
            error: refused.reason,
            responseExcerpt: null,
            durationMs: 0,
            retryAfterMs: null,
            requestHeaders: null,
            responseHeaders: null,
          }
        : await attempt(endpoint, delivery, now, address, traceparentOf(span, delivery.traceparent), signal);
      if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
      if (!result.ok)
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? `HTTP ${result.statusCode}` });
      if (!refused) limits?.observe(endpoint.id, result);
      if (signal.aborted && result.statusCode === null && !refused) {
        // Stopped mid-attempt: handed back, so another worker sends it at once.
        await storage.webhooks.deliveries.release(delivery.id, workerIdOf());
        return;
      }
      // A refused address is final; a failed name lookup is retried like a network error.
      await record(endpoint, delivery, result, { startedAt, refused: refused?.permanent === true });
    });
  }

  async function attempt(
    endpoint: WebhookEndpointRecord,
    delivery: WebhookDeliveryRecord,
    now: number,
    address: string | undefined,
    traceparent: string | undefined,
    signal: AbortSignal,
  ): Promise<AttemptResult> {
    // Ed25519: the deployment's keys (`v1a`), not the endpoint's secrets.
    const headers =
      endpoint.signature === 'ed25519'
        ? await signWebhook({
            body: delivery.payload,
            privateKeys: await keyRing.signingKeys(),
            eventId: delivery.eventId,
            timestamp: Math.floor(now / 1000),
          })
        : await signWebhook({
            body: delivery.payload,
            secrets: endpoint.secrets
              .filter((s) => s.expiresAt === null || s.expiresAt > now)
              .map((s) => s.secret),
            eventId: delivery.eventId,
            timestamp: Math.floor(now / 1000),
            scheme: endpoint.scheme,
          });
    headers['user-agent'] = 'switchboard-webhooks/1';
    // The receiver joins the trace of the request that caused the event (W3C Trace Context).
    if (traceparent) headers.traceparent = traceparent;
    // The endpoint's own headers; their names never clash with the ones above (admin-schemas.ts).
    if (endpoint.headers) Object.assign(headers, endpoint.headers);
    // The loop aborts an attempt still in flight when its grace after `stop` has run out.
    signal.addEventListener('abort', stopPosts, { once: true });
    const result = await sendAttempt({
      url: endpoint.url,
      address,
      headers,
      body: delivery.payload,
      poster,
      timeoutMs,
      signal,
      burstRetries: options.burstRetries ?? 2,
      now: () => clock.now(),
    });
    // The log keeps what was sent, but never a credential of the endpoint's own headers.
    return endpoint.headers && result.requestHeaders
      ? { ...result, requestHeaders: maskedHeaders(result.requestHeaders) }
      : result;
  }

  async function record(
    endpoint: WebhookEndpointRecord,
    delivery: WebhookDeliveryRecord,
    result: AttemptResult,
    context: { startedAt: number; refused: boolean },
  ): Promise<void> {
    const now = clock.now();
    const attempts = delivery.attempts + 1;
    const decision = context.refused
      ? { status: 'dead' as const, nextAttemptAt: null, gone: false }
      : decide(result, {
          schedule: endpoint.retrySchedule ? endpointRetrySchedule(endpoint.retrySchedule) : schedule,
          attempts,
          now,
          random,
          maxRetryAfterMs: options.maxRetryAfterMs ?? 10 * 3_600_000,
        });
    const { recorded } = await writeOutcome({
      kind: 'attempted',
      delivery,
      endpoint,
      result,
      decision,
      startedAt: context.startedAt,
    });
    if (!recorded) {
      logger.log('warn', 'webhook lease lost before the attempt was recorded', { deliveryId: delivery.id });
      return;
    }
    if (decision.nextAttemptAt !== null) wakeAt(decision.nextAttemptAt);
    if (telemetry.measuring) {
      const endpointId = { 'switchboard.webhook.endpoint_id': endpoint.id };
      const outcome = decision.status === 'pending' ? 'retrying' : decision.status;
      telemetry.webhookAttempts.add(1, { ...endpointId, 'switchboard.webhook.outcome': outcome });
      if (decision.status === 'succeeded')
        telemetry.webhookLag.record(Math.max(0, now - delivery.createdAt) / 1000, endpointId);
    }
    logger.log(result.ok ? 'debug' : 'info', 'webhook attempt', {
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      attempt: attempts,
      status: result.statusCode,
      outcome: decision.status,
      durationMs: result.durationMs,
    });
  }

  const loop = createWorkerLoop<Claimed>({
    name: 'webhook dispatcher',
    capacity: concurrency,
    // Each delivery frees its place as it ends: a slow endpoint holds only its own.
    unit: 'item',
    claim,
    process: deliver,
    idleMs: options.pollIntervalMs ?? 1_000,
    timers: runtime.timers,
    logger,
  });
  // Stopped for good: no claims afterwards, and the poster's idle connections closed.
  let stopped = false;
  /** The one timer that wakes the loop for a retry due before its next poll, and when it fires. */
  let wake: { handle: unknown; at: number } | undefined;
  const pollMs = options.pollIntervalMs ?? 1_000;

  /**
   * Looks for due deliveries at `at` when that comes before the next poll: a retry 100 ms after a
   * failure (an endpoint's own schedule) or a turn under a receiver's pace is sent then, not a poll later.
   */
  function wakeAt(at: number): void {
    const delay = at - clock.now();
    if (stopped || delay >= pollMs || (wake && wake.at <= at)) return;
    if (wake) runtime.timers.clearTimeout(wake.handle);
    const handle = runtime.timers.setTimeout(
      () => {
        wake = undefined;
        loop.notify();
      },
      Math.max(0, delay),
    );
    wake = { handle, at };
  }

  return {
    get workerId() {
      return workerIdOf();
    },
    runOnce: () => (stopped ? Promise.resolve(0) : loop.drain()),
    kick: () => loop.notify(),
    start() {
      if (!stopped) loop.start();
    },
    async stop({ graceMs = timeoutMs } = {}) {
      await loop.stop({ graceMs });
      stopped = true;
      if (wake) runtime.timers.clearTimeout(wake.handle);
      wake = undefined;
      poster.stop();
    },
  };
}

/** A claimed delivery and the lookup of its endpoint (shared by the claim's deliveries to it). */
interface Claimed {
  readonly delivery: WebhookDeliveryRecord;
  readonly endpoint: Promise<WebhookEndpointRecord | null>;
}

import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { isoAt, silentLogger, sortableIds, systemClock } from '../core/runtime.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from '../core/storage/index.js';
import { contextOfTraceparent, createTelemetry, inSpan, traceparentOf } from '../core/telemetry/index.js';
import { decide } from './decide.js';
import type { WebhookDispatcherOptions } from './dispatcher-options.js';
import { createEndpointLimits } from './endpoint-limits.js';
import { checkDestination } from './outbound.js';
import { createOutcomeWriter } from './outcome-writer.js';
import { createPoster } from './post.js';
import { retrySchedule } from './schedule.js';
import { type AttemptResult, sendAttempt } from './send.js';
import { signWebhook } from './sign.js';

/** Sends due deliveries: claims them with a lease, signs, posts, and writes the outcome to storage. */
export interface WebhookDispatcher {
  readonly workerId: string;
  /** Delivers everything due now (and what falls due meanwhile); resolves with the attempts made. */
  runOnce(): Promise<number>;
  /** Looks for due deliveries soon, if started; cheap to call after every fan-out. */
  kick(): void;
  /** Polls every `pollIntervalMs` until stopped. */
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
 * const dispatcher = createWebhookDispatcher({ storage, outbound: { resolveHost } });
 * dispatcher.start();
 * // on shutdown
 * await dispatcher.stop();
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { storage } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? sortableIds;
  const logger = options.logger ?? silentLogger;
  const poster = createPoster(options.fetch);
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
  const disableAfterMs = options.disableAfterMs ?? 5 * 24 * 3_600_000;
  const random = options.random ?? Math.random;
  const telemetry = options.telemetry ?? createTelemetry();
  const writeOutcome = createOutcomeWriter({
    storage,
    ids,
    logger,
    workerId: workerIdOf,
    disableAfterMs,
    ...(options.onCommit ? { onCommit: options.onCommit } : {}),
  });
  const limits =
    options.adaptiveConcurrency === false
      ? undefined
      : createEndpointLimits({ initial: maxPerEndpoint, max: Math.floor((concurrency * 3) / 4) });
  // Stopping is a flag, and an AbortController per attempt in flight made by the attempt: workerd builds
  // before September 2026 refuse one in a module's global scope, where the switchboard (and so this
  // dispatcher) is often made, and tie it to the request that made it, while a Worker's dispatcher
  // works after many.
  let stopped = false;
  const attempting = new Set<AbortController>();
  const inFlight = new Map<string, Promise<void>>();
  let filling: Promise<number> | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  let kicked = false;
  /** A slot freed while a claim was under way: claim again when it ends. */
  let refill = false;

  async function deliver(
    delivery: WebhookDeliveryRecord,
    endpointOf: Promise<WebhookEndpointRecord | null>,
  ): Promise<void> {
    const lease = { workerId: workerIdOf(), attempts: delivery.attempts };
    const endpoint = await endpointOf;
    const now = clock.now();
    if (!endpoint?.enabled) {
      limits?.forget(delivery.endpointId);
      await storage.webhooks.deliveries.finish(delivery.id, lease, {
        status: 'dead',
        attempts: delivery.attempts,
        nextAttemptAt: null,
        lastStatusCode: null,
        lastError: endpoint ? 'The endpoint is disabled.' : 'The endpoint was deleted.',
        at: isoAt(now),
      });
      return;
    }
    if (maxPerSecond !== undefined) {
      // The receiver's own pace: over it, the delivery waits for its turn and spends no attempt.
      const turn = await storage.rateLimits.take(
        `webhook:${endpoint.id}`,
        // Evenly spaced, no burst: never more than maxPerSecond in any second.
        { limit: 1, windowMs: 1000 / maxPerSecond },
        1,
        now,
      );
      if (!turn.allowed) {
        await storage.webhooks.deliveries.finish(delivery.id, lease, {
          status: 'pending',
          attempts: delivery.attempts,
          nextAttemptAt: isoAt(now + Math.max(1, turn.retryAfterMs)),
          lastStatusCode: delivery.lastStatusCode,
          lastError: delivery.lastError,
          at: isoAt(now),
        });
        return;
      }
    }
    // One span per attempt, in the trace of the request that caused the event; the outcome is
    // written (and logged) inside it, so the log line carries the trace id.
    const spanOptions = { kind: SpanKind.CLIENT, parent: contextOfTraceparent(delivery.traceparent) };
    await inSpan(telemetry.tracer, 'switchboard.webhook.attempt', spanOptions, async (span) => {
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
      const startedAt = isoAt(now);
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
          }
        : await attempt(endpoint, delivery, now, address, traceparentOf(span, delivery.traceparent));
      if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
      if (!result.ok)
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? `HTTP ${result.statusCode}` });
      if (!refused) limits?.observe(endpoint.id, result);
      if (stopped && result.statusCode === null && !refused) {
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
  ): Promise<AttemptResult> {
    const nowIso = isoAt(now);
    const secrets = endpoint.secrets
      .filter((s) => s.expiresAt === null || s.expiresAt > nowIso)
      .map((s) => s.secret);
    const headers = await signWebhook({
      body: delivery.payload,
      secrets,
      eventId: delivery.eventId,
      timestamp: Math.floor(now / 1000),
      scheme: endpoint.scheme,
    });
    headers['user-agent'] = 'switchboard-webhooks/1';
    // The receiver joins the trace of the request that caused the event (W3C Trace Context).
    if (traceparent) headers.traceparent = traceparent;
    const stopping = new AbortController();
    attempting.add(stopping);
    try {
      return await sendAttempt({
        url: endpoint.url,
        address,
        headers,
        body: delivery.payload,
        poster,
        timeoutMs,
        signal: stopping.signal,
        burstRetries: options.burstRetries ?? 2,
        now: () => clock.now(),
      });
    } finally {
      attempting.delete(stopping);
    }
  }

  async function record(
    endpoint: WebhookEndpointRecord,
    delivery: WebhookDeliveryRecord,
    result: AttemptResult,
    context: { startedAt: string; refused: boolean },
  ): Promise<void> {
    const now = clock.now();
    const attempts = delivery.attempts + 1;
    const decision = context.refused
      ? { status: 'dead' as const, nextAttemptAt: null, gone: false }
      : decide(result, {
          schedule,
          attempts,
          now,
          random,
          maxRetryAfterMs: options.maxRetryAfterMs ?? 10 * 3_600_000,
        });
    const { recorded } = await writeOutcome({
      delivery,
      endpoint,
      result,
      decision,
      startedAt: context.startedAt,
      now,
      at: isoAt(now),
    });
    if (!recorded) {
      logger.log('warn', 'webhook lease lost before the attempt was recorded', { deliveryId: delivery.id });
      return;
    }
    if (telemetry.measuring) {
      const endpointId = { 'switchboard.webhook.endpoint_id': endpoint.id };
      const outcome = decision.status === 'pending' ? 'retrying' : decision.status;
      telemetry.webhookAttempts.add(1, { ...endpointId, 'switchboard.webhook.outcome': outcome });
      if (decision.status === 'succeeded')
        telemetry.webhookLag.record(Math.max(0, now - Date.parse(delivery.createdAt)) / 1000, endpointId);
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

  function launch(delivery: WebhookDeliveryRecord, endpoint: Promise<WebhookEndpointRecord | null>): void {
    const run = deliver(delivery, endpoint)
      .catch((error) => {
        logger.log('error', 'webhook delivery failed unexpectedly; its lease will expire', {
          deliveryId: delivery.id,
          error: String(error),
        });
      })
      .finally(() => {
        inFlight.delete(delivery.id);
        if (timer !== undefined) kick();
      });
    inFlight.set(delivery.id, run);
  }

  /** Claims as many due deliveries as there are free slots and starts them; one claim at a time. */
  function fill(): Promise<number> {
    if (filling) {
      refill = true;
      return filling;
    }
    const free = concurrency - inFlight.size;
    if (free <= 0 || stopped) return Promise.resolve(0);
    // `.finally` runs after this assignment, so a claim that settles at once cannot leave `filling` stuck.
    const claiming = claimAndLaunch(free).finally(() => {
      filling = null;
      if (refill) {
        refill = false;
        kick();
      }
    });
    filling = claiming;
    return claiming;
  }

  async function claimAndLaunch(limit: number): Promise<number> {
    const claimed = await storage.webhooks.deliveries.claimDue({
      now: clock.now(),
      limit,
      leaseMs,
      workerId: workerIdOf(),
      maxPerEndpoint,
      ...(limits ? { endpointLimits: limits.caps() } : {}),
    });
    // One lookup per endpoint per claim, shared by its deliveries.
    const endpoints = new Map<string, Promise<WebhookEndpointRecord | null>>();
    for (const delivery of claimed) {
      let endpoint = endpoints.get(delivery.endpointId);
      if (!endpoint) {
        endpoint = storage.webhooks.endpoints.get(delivery.endpointId);
        endpoints.set(delivery.endpointId, endpoint);
      }
      launch(delivery, endpoint);
    }
    return claimed.length;
  }

  function kick(): void {
    // Only a started dispatcher works in the background; `runOnce` is the manual way.
    if (kicked || timer === undefined) return;
    kicked = true;
    // A microtask, not a timer: a freed slot is claimed again at once (a timer waits ≥ 1 ms per round),
    // and finishes in the same turn still share one claim.
    queueMicrotask(() => {
      kicked = false;
      fill().catch((error) =>
        logger.log('error', 'webhook dispatcher poll failed', { error: String(error) }),
      );
    });
  }

  return {
    get workerId() {
      return workerIdOf();
    },
    async runOnce() {
      let total = 0;
      for (;;) {
        const started = await fill();
        total += started;
        if (inFlight.size === 0 && started === 0) return total;
        if (started === 0 || inFlight.size >= concurrency) await Promise.race(inFlight.values());
      }
    },
    kick,
    start() {
      if (timer !== undefined || stopped) return;
      timer = setInterval(kick, options.pollIntervalMs ?? 1_000);
      kick();
    },
    async stop({ graceMs = timeoutMs } = {}) {
      clearInterval(timer);
      timer = undefined;
      await filling?.catch(() => 0);
      if (inFlight.size > 0) {
        let graceTimer: ReturnType<typeof setTimeout> | undefined;
        const grace = new Promise<void>((resolve) => {
          graceTimer = setTimeout(resolve, graceMs);
        });
        await Promise.race([Promise.all(inFlight.values()), grace]);
        clearTimeout(graceTimer);
      }
      stopped = true;
      for (const stopping of attempting) stopping.abort();
      poster.stop();
      await Promise.all(inFlight.values());
    },
  };
}

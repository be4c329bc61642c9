import type { Runtime } from '../core/runtime.js';
import type { OutboundPolicy } from '../http/outbound.js';
import type { WebhookKeyRing } from './signing-keys.js';

/**
 * What the dispatcher reads from the runtime: the storage (its background connections when it has
 * them), clock, timers its loop waits on, ids, logger; the telemetry a span per attempt
 * (`switchboard.webhook.attempt`, in the trace of the event's request) and the delivery metrics go to;
 * and outbound HTTP (when undefined, the runtime's `node:http` where it has one, with keep-alive
 * connections and no stream objects per attempt, else its `fetch`).
 */
export type WebhookDispatcherRuntime = Pick<
  Runtime,
  'storage' | 'clock' | 'timers' | 'ids' | 'logger' | 'telemetry' | 'fetch'
>;

/** Settings of `createWebhookDispatcher`: outbound policy, retries, timeouts and concurrency. */
export interface WebhookDispatcherConfig {
  readonly outbound?: OutboundPolicy;
  /** Names this worker in leases; unique per dispatcher (default a random id). */
  readonly workerId?: string;
  /** Total attempts per delivery, 3 to 10 (default 8). */
  readonly attempts?: number;
  /** Delays before each attempt (default: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
  readonly delaysMs?: readonly number[];
  /** Per-attempt timeout (default 15 s). */
  readonly timeoutMs?: number;
  /**
   * Deliveries in flight in this worker (default 64). Under request load the event loop serves each
   * connection in turn, so deliveries keep pace with incoming writes only with about as many in flight.
   */
  readonly concurrency?: number;
  /**
   * Deliveries of one endpoint in flight across all workers (default 4). With `adaptiveConcurrency` this
   * is where each endpoint starts.
   */
  readonly maxPerEndpoint?: number;
  /**
   * Deliveries sent to one endpoint per second at most, evenly spaced (never more in any second),
   * across every worker sharing the storage (its rate-limit store keeps the pace). A delivery that
   * comes too soon waits for its turn without spending an attempt. Default: no limit beyond
   * `maxPerEndpoint`.
   */
  readonly maxPerSecond?: number;
  /**
   * Learn each endpoint's limit from its answers (default true): quick 2xx answers widen it up to three
   * quarters of `concurrency` (the rest stays free for other endpoints); 429, 5xx, timeouts, network
   * errors and slow answers halve it; a `Retry-After` drops it to one. Each worker learns on its own.
   */
  readonly adaptiveConcurrency?: boolean;
  /** How long a claim is held before another worker may take it (default timeout + 60 s). */
  readonly leaseMs?: number;
  /** How often `start()` polls for due deliveries (default 1 s). */
  readonly pollIntervalMs?: number;
  /** The longest `Retry-After` honoured (default 10 h). */
  readonly maxRetryAfterMs?: number;
  /** An endpoint failing without a success for this long is disabled (default 5 days). */
  readonly disableAfterMs?: number;
  /** Quick in-process retries of a refused/reset connection within one attempt (default 2). */
  readonly burstRetries?: number;
  /**
   * An ordered endpoint's subject whose events have waited this long behind a failing delivery is
   * announced with a `webhook_subject.held` event, once per hold (default 15 minutes).
   */
  readonly heldAfterMs?: number;
}

/** Options of `createWebhookDispatcher`: its settings, a jitter source and a hook for its commits. */
export interface WebhookDispatcherOptions extends WebhookDispatcherConfig {
  /** Jitter source in [0, 1) (default `Math.random`). */
  readonly random?: () => number;
  /** Called after the dispatcher committed an event (endpoint disabled), e.g. to wake the outbox relay. */
  readonly onCommit?: () => void;
  /**
   * The deployment's signing keys for `ed25519` endpoints (default: a ring over the runtime's storage);
   * pass the one the admin rotates, so this instance follows a rotation at once.
   */
  readonly keyRing?: WebhookKeyRing;
}

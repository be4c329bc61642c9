import { SwitchboardError } from '../core/errors.js';
import { type Clock, type Logger, silentLogger, systemClock } from '../core/runtime.js';
import type { IdempotencyStore } from '../core/storage/index.js';
import { readBody } from '../http/body.js';
import { jsonResponse } from '../http/json.js';
import { problemResponse } from '../http/problem.js';
import { createBackgroundQueue } from './background-queue.js';
import type { SignatureScheme, SignedContent } from './sign.js';
import { type VerifyOptions, verifyWebhook } from './verify.js';

/** A verified webhook, handed to `onEvent`. */
export interface ReceivedWebhook {
  /** `event_id` (or `webhook-id` in the Standard Webhooks scheme): the deduplication key. */
  readonly id: string;
  /** `event` (or `type`), e.g. `order.shipped`. */
  readonly type: string;
  /** The whole parsed body. */
  readonly payload: Readonly<Record<string, unknown>>;
}

/** What `onEvent` gets besides the event: a way to defer slow work until after the answer. */
export interface ReceiveContext {
  /**
   * Runs `task` after the answer: with the runtime's `waitUntil` when given, else in a bounded
   * in-process queue. Deferred work is best effort: if it fails or the process dies, the event is
   * already marked processed and the sender will not retry. Put anything that must not be lost in
   * `onEvent` itself (e.g. write the event to your own queue), then defer the slow part.
   */
  defer(task: () => Promise<void>): void;
}

/** Options of {@link createWebhookReceiver}: the secrets, where processed event ids are kept, the handler. */
export interface WebhookReceiverOptions {
  /** Every secret currently valid (several during a rotation). */
  readonly secrets?: readonly string[];
  /**
   * For an `ed25519` endpoint instead of `secrets`: the sender's key set (`/.well-known/webhook-keys`
   * as fetched) or its keys; the scheme is then `standard` and `webhook-id` is the event id.
   */
  readonly publicKeys?: VerifyOptions['publicKeys'];
  /** Where processed event ids are kept, e.g. `storage.idempotency`. */
  readonly idempotency: IdempotencyStore;
  /** Processes one event, once. Throwing answers 500, so the sender retries and it runs again. */
  readonly onEvent: (event: ReceivedWebhook, context: ReceiveContext) => void | Promise<void>;
  readonly scheme?: SignatureScheme;
  readonly content?: SignedContent;
  readonly signatureHeader?: string;
  readonly timestampHeader?: string;
  /** Timestamp tolerance both ways (default 300 s). */
  readonly toleranceSeconds?: number;
  /** Largest body accepted (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** How long processed ids are remembered: at least the sender's retry horizon (default 72 h). */
  readonly retentionMs?: number;
  /** How long a duplicate waits for the first copy to finish before answering 409 (default 10 s). */
  readonly duplicateWaitMs?: number;
  /** How long an unfinished claim blocks others before it counts as abandoned (default 60 s). */
  readonly lockMs?: number;
  /** The runtime's `waitUntil` (Cloudflare, Vercel, Deno Deploy); deferred work uses it when given. */
  readonly waitUntil?: (promise: Promise<unknown>) => void;
  /** The in-process queue used without `waitUntil` (default 4 at once, 1000 waiting). */
  readonly background?: { readonly concurrency?: number; readonly maxQueued?: number };
  /** Namespaces keys in the idempotency store (default `webhook:`). */
  readonly keyPrefix?: string;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** A fetch handler; `drain()` resolves when deferred work queued in-process has finished. */
export interface WebhookReceiver {
  (request: Request): Promise<Response>;
  drain(): Promise<void>;
}

/**
 * The consumer's side: a fetch handler that reads the raw body (size-limited), verifies it, processes
 * each `event_id` once and answers 200 — duplicates included, without processing them again.
 *
 * @example
 * const receive = createWebhookReceiver({
 *   secrets: [process.env.WEBHOOK_SECRET!],
 *   idempotency: createMemoryStorage().idempotency,
 *   onEvent: async (event, { defer }) => {
 *     if (event.type === 'order.shipped') defer(() => sendShippingEmail(event.payload));
 *   },
 * });
 * Deno.serve(receive);
 */
export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const prefix = options.keyPrefix ?? 'webhook:';
  const retentionMs = options.retentionMs ?? 72 * 3_600_000;
  const lockMs = options.lockMs ?? 60_000;
  const duplicateWaitMs = options.duplicateWaitMs ?? 10_000;
  const queue = createBackgroundQueue({
    concurrency: options.background?.concurrency ?? 4,
    maxQueued: options.background?.maxQueued ?? 1_000,
    logger,
  });
  const context: ReceiveContext = {
    defer(task) {
      if (options.waitUntil) {
        options.waitUntil(
          task().catch((error) =>
            logger.log('error', 'deferred webhook work failed', { error: String(error) }),
          ),
        );
      } else if (!queue.push(task)) {
        throw new SwitchboardError('unavailable', 'Too much webhook work is waiting; retry later.');
      }
    },
  };

  async function process(event: ReceivedWebhook): Promise<Response> {
    const key = `${prefix}${event.id}`;
    // Real elapsed time, not the injected clock: this bounds how long a request is held open.
    const giveUpAt = performance.now() + duplicateWaitMs;
    for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
      const claim = await options.idempotency.claim(key, { now: clock.now(), lockMs });
      if (claim.state === 'completed') return jsonResponse(200, { status: 'duplicate', event_id: event.id });
      if (claim.state === 'claimed') break;
      // Another copy is being processed: wait for its outcome rather than answer 200 for work that may still fail.
      if (performance.now() >= giveUpAt) {
        return problemResponse(
          new SwitchboardError('conflict', 'This event is being processed; retry later.'),
          {
            'retry-after': '5',
          },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
    try {
      await options.onEvent(event, context);
    } catch (error) {
      await options.idempotency.release(key);
      if (!(error instanceof SwitchboardError)) {
        logger.log('error', 'webhook processing failed; the sender will retry', {
          eventId: event.id,
          error: String(error),
        });
      }
      return problemResponse(error);
    }
    await options.idempotency.complete(key, null, clock.now() + retentionMs);
    return jsonResponse(200, { status: 'processed', event_id: event.id });
  }

  async function handle(request: Request): Promise<Response> {
    if (request.method !== 'POST') {
      throw new SwitchboardError('method_not_allowed', 'Webhooks are delivered with POST.');
    }
    const body = await readBody(request, options.maxBodyBytes ?? 1_048_576);
    const verified = await verifyWebhook({
      body,
      headers: request.headers,
      secrets: options.secrets,
      publicKeys: options.publicKeys,
      scheme: options.scheme,
      content: options.content,
      signatureHeader: options.signatureHeader,
      timestampHeader: options.timestampHeader,
      toleranceSeconds: options.toleranceSeconds,
      clock,
    });
    if (!verified.ok) {
      const malformed = verified.reason === 'missing_header' || verified.reason === 'malformed';
      throw new SwitchboardError(malformed ? 'bad_request' : 'unauthorized', verified.message, {
        details: [{ field: 'signature', code: verified.reason, message: verified.message }],
      });
    }
    const payload = parse(body);
    const id =
      options.scheme === 'standard' || options.publicKeys !== undefined
        ? verified.eventId
        : (stringField(payload, 'event_id') ?? verified.eventId);
    const type = stringField(payload, 'event') ?? stringField(payload, 'type');
    if (!id || !type) {
      throw new SwitchboardError('bad_request', 'The webhook has no event id or event type.', {
        details: [
          { field: id ? 'event' : 'event_id', code: 'required', message: 'Required in every webhook.' },
        ],
      });
    }
    return process({ id, type, payload });
  }

  const receiver = async (request: Request): Promise<Response> => {
    try {
      return await handle(request);
    } catch (error) {
      return problemResponse(error, request.method === 'POST' ? {} : { allow: 'POST' });
    }
  };
  return Object.assign(receiver, { drain: () => queue.drain() });
}

function parse(body: Uint8Array): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(body));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Answered below.
  }
  throw new SwitchboardError('bad_request', 'The webhook body must be a JSON object.');
}

function stringField(payload: Record<string, unknown>, name: string): string | null {
  const value = payload[name];
  return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : null;
}

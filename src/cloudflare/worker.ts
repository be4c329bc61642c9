import type { OutboxRelay } from '../core/outbox-relay.js';
import type { Storage } from '../core/storage/index.js';

/**
 * The part of a Worker's `ExecutionContext` this adapter uses: work that may go on after the response.
 * Declared here so the package needs no `@cloudflare/workers-types`; Cloudflare's own type fits it.
 */
export interface WorkerExecutionContext {
  /** Keeps the Worker running until `promise` settles, up to 30 s after the response (or the cron event). */
  waitUntil(promise: Promise<unknown>): void;
}

/** The part of a cron trigger's `ScheduledController` this adapter reads. */
export interface WorkerScheduledController {
  /** The cron expression that fired, e.g. `* * * * *`. */
  readonly cron: string;
  /** When the trigger was due, in milliseconds since the epoch. */
  readonly scheduledTime: number;
}

/**
 * What a Worker needs of a switchboard: `createSwitchboard()` returns one, and so does any host that
 * puts the building blocks together itself. The webhook dispatcher is optional, as webhooks are.
 */
export interface WorkerSwitchboard {
  /** Serves every request; `info` gives the peer's address (the switchboard's `ConnectionInfo`). */
  readonly fetch: (request: Request, info?: { readonly clientAddress?: string }) => Promise<Response>;
  /** Moves committed events to the webhook fan-out and the event bus. */
  readonly relay: Pick<OutboxRelay, 'flush'>;
  /** Sends due webhook deliveries; undefined when webhooks are off. */
  readonly webhooks?: { readonly dispatcher: { runOnce(): Promise<number> } } | undefined;
  /** Swept on every cron event when the adapter has `sweep` (PostgreSQL); the memory adapter has not. */
  readonly storage: Pick<Storage, 'sweep'>;
}

/**
 * A Worker's handlers (Cloudflare's `ExportedHandler`): export it as the module's default. The env
 * argument is not read; bindings reach the switchboard where it is made.
 */
export interface SwitchboardWorker {
  /** Serves the request; after a write, the webhooks it caused go out under `ctx.waitUntil`. */
  fetch(request: Request, env: unknown, ctx: WorkerExecutionContext): Promise<Response>;
  /** A cron trigger: relays what is left, retries the deliveries now due, sweeps expired records. */
  scheduled(controller: WorkerScheduledController, env: unknown, ctx: WorkerExecutionContext): Promise<void>;
}

/** Requests that never write (RFC 9110 §9.2.1): after them there is nothing new to relay. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A graphql-ws socket would keep its subscriptions in one isolate's memory across requests, which a
 * Worker does not give: say so, and where the same subscriptions are served.
 */
const noWebSockets = (): Response =>
  new Response(
    JSON.stringify({
      type: 'about:blank',
      title: 'WebSockets are not served here',
      status: 501,
      detail:
        'GraphQL subscriptions over WebSocket are not served on Cloudflare Workers. Subscribe over ' +
        'Server-Sent Events instead: POST /graphql with Accept: text/event-stream.',
    }),
    { status: 501, headers: { 'content-type': 'application/problem+json' } },
  );

/**
 * A Cloudflare Worker serving `switchboard`. A Worker has no timers between requests, so `start()` —
 * which polls — is not called: the work a server does on its timers is done instead after each request
 * that may have written (the outbox relay's flush, so the webhook fan-out and the event bus, then the
 * dispatcher's due deliveries) under `ctx.waitUntil`, and on each cron trigger, which also retries
 * deliveries that failed earlier and sweeps expired records.
 *
 * @example
 * // src/worker.ts, with `"triggers": { "crons": ["* * * * *"] }` in wrangler.json for retries
 * import { env } from 'cloudflare:workers';
 * import { createSwitchboard } from 'switchboard-kit';
 * import { createWorker } from 'switchboard-kit/cloudflare';
 * export default createWorker(createSwitchboard({ oauth: { adminApiKey: env.SWITCHBOARD_API_KEY } }));
 */
export function createWorker(switchboard: WorkerSwitchboard): SwitchboardWorker {
  /** Relay first: its fan-out creates the deliveries the dispatcher then sends. */
  async function deliver(): Promise<void> {
    try {
      await switchboard.relay.flush();
    } finally {
      // Even when the relay failed: deliveries made earlier are still due.
      await switchboard.webhooks?.dispatcher.runOnce();
    }
  }
  return {
    async fetch(request, _env, ctx) {
      if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') return noWebSockets();
      // Cloudflare's edge sets CF-Connecting-IP to the peer's address (a client cannot): the budgets
      // of callers without credentials are their own.
      const clientAddress = request.headers.get('cf-connecting-ip') ?? undefined;
      const response = await switchboard.fetch(request, { clientAddress });
      if (!SAFE_METHODS.has(request.method)) ctx.waitUntil(deliver());
      return response;
    },
    async scheduled() {
      // A rejection fails the cron event: Cloudflare logs it and counts it in the trigger's history.
      await Promise.all([deliver(), switchboard.storage.sweep?.({ now: Date.now() })]);
    },
  };
}

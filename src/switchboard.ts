import { type Authenticate, trustEveryone } from './core/auth.js';
import { createDomain, type Domain } from './core/domain/index.js';
import { SwitchboardError } from './core/errors.js';
import { createMemoryEventBus, type EventBus } from './core/event-bus.js';
import { createOutboxRelay, type OutboxRelay } from './core/outbox-relay.js';
import {
  type Clock,
  type IdGenerator,
  type Logger,
  randomIds,
  silentLogger,
  systemClock,
} from './core/runtime.js';
import { jsonResponse } from './internal/json.js';
import { problemResponse } from './internal/problem.js';
import type { Storage } from './storage/contract/index.js';
import { createMemoryStorage } from './storage/memory/index.js';

export type FetchHandler = (request: Request) => Promise<Response>;

export interface SwitchboardOptions {
  /** Where records live; in-memory when omitted. */
  readonly storage?: Storage;
  /** Live event fan-out; in-process when omitted. Pass a cross-instance bus when running many instances. */
  readonly bus?: EventBus;
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  readonly logger?: Logger;
  /**
   * How callers are identified on every interface. Until the OAuth guard is wired in (issue 5) the
   * default trusts everyone.
   */
  readonly authenticate?: Authenticate;
  /** How often the outbox relay polls for events left by crashed or other instances (default 1 s). */
  readonly relayIntervalMs?: number;
}

/** Everything assembled: one fetch handler plus the parts, each also usable on its own. */
export interface Switchboard {
  /** Serves every interface: health checks, and each building block under its path. */
  readonly fetch: FetchHandler;
  readonly domain: Domain;
  readonly storage: Storage;
  readonly bus: EventBus;
  readonly relay: OutboxRelay;
  /** Starts background work (the outbox relay's polling). Idempotent. */
  start(): void;
  /** Stops background work after finishing what is in flight; the storage stays open (the host owns it). */
  close(): Promise<void>;
}

interface Mount {
  readonly prefix: string;
  readonly handle: FetchHandler;
}

/**
 * Assembles the building blocks into one Web-standard fetch handler.
 *
 * @example
 * import { createSwitchboard } from 'switchboard-kit';
 * import { serve } from 'switchboard-kit/node';
 * const switchboard = createSwitchboard();
 * switchboard.start();
 * await serve({ fetch: switchboard.fetch, port: 4000, onShutdown: switchboard.close });
 */
export function createSwitchboard(options: SwitchboardOptions = {}): Switchboard {
  const storage = options.storage ?? createMemoryStorage();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const bus = options.bus ?? createMemoryEventBus({ logger });
  const relay = createOutboxRelay({ storage, bus, clock, logger });
  const domain = createDomain({
    storage,
    clock,
    ids: options.ids ?? randomIds,
    onCommit: () => relay.kick(),
  });

  // Replaced by the OAuth guard (bearer tokens and API keys) when the OAuth module lands.
  const authenticate: Authenticate = options.authenticate ?? trustEveryone;
  void authenticate;

  // Most specific prefix first: the first mount whose prefix matches serves the request.
  const mounts: Mount[] = [
    {
      prefix: '/healthz',
      handle: async () => jsonResponse(200, { status: 'ok' }, { 'cache-control': 'no-store' }),
    },
    { prefix: '/readyz', handle: () => readiness(storage, logger) },
  ];

  async function route(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    const mount = mounts.find(({ prefix }) => pathname === prefix || pathname.startsWith(`${prefix}/`));
    if (!mount) throw new SwitchboardError('not_found', `Nothing is served at ${pathname}.`);
    return mount.handle(request);
  }

  async function fetch(request: Request): Promise<Response> {
    const started = clock.now();
    let response: Response;
    try {
      response = await route(request);
    } catch (error) {
      if (!(error instanceof SwitchboardError)) {
        logger.log('error', 'unhandled error', { error: String(error), stack: (error as Error)?.stack });
      }
      response = problemResponse(error);
    }
    const { pathname } = new URL(request.url);
    logger.log('info', 'request', {
      method: request.method,
      path: pathname,
      status: response.status,
      durationMs: clock.now() - started,
    });
    return response;
  }

  let running = false;
  return {
    fetch,
    domain,
    storage,
    bus,
    relay,
    start() {
      if (running) return;
      running = true;
      relay.start({ intervalMs: options.relayIntervalMs ?? 1_000 });
      relay.kick();
    },
    async close() {
      await relay.stop();
      await relay.flush().catch(() => 0);
    },
  };
}

async function readiness(storage: Storage, logger: Logger): Promise<Response> {
  try {
    await storage.ping();
    return jsonResponse(200, { status: 'ready', storage: 'ok' }, { 'cache-control': 'no-store' });
  } catch (error) {
    logger.log('warn', 'storage not ready', { error: String(error) });
    return jsonResponse(
      503,
      { status: 'unavailable', storage: 'unreachable' },
      { 'cache-control': 'no-store' },
    );
  }
}

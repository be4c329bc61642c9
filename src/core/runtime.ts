/**
 * What the host injects so that nothing in `src/` reaches for globals: storage, time, identifiers,
 * logging, telemetry and outbound HTTP, given to every building block as one {@link Runtime}.
 * Tests pass a manual clock and a counter for ids; production uses the defaults.
 */
import { type LookOptions, resolveLook } from '../internal/look/options.js';
import { SwitchboardError } from './errors.js';
import type { Storage } from './storage/index.js';
import { createTelemetry, type Telemetry } from './telemetry/telemetry.js';

/** Wall-clock time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** Makes a new unique id with a readable prefix, e.g. `cli_…` for a client. */
export type IdGenerator = (prefix: string) => string;

/** How serious a log entry is, from `debug` to `error`. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Structured logger: a message plus fields. Never pass secrets in fields. */
export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
}

/** The real clock: `Date.now()`. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * One-shot timers, injected beside the clock so that background loops can be driven without the
 * runtime's own (a handle is whatever `setTimeout` returns, given back to `clearTimeout`).
 */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The runtime's `setTimeout` and `clearTimeout`, looked up when called. */
export const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Random ids: a prefix and 128 bits from `crypto.randomUUID`, e.g. `cli_6f1c…`. */
export const randomIds: IdGenerator = (prefix) => `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`;

let lastMs = 0;
let sequence = 0;
// Random words drawn 512 at a time: one getRandomValues call per 256 ids instead of one per id.
const pool = new Uint32Array(512);
let drawn = pool.length;
function randomWord(): number {
  if (drawn === pool.length) {
    crypto.getRandomValues(pool);
    drawn = 0;
  }
  return pool[drawn++]!;
}

/**
 * The default ids: a prefix and 32 hex digits that sort in creation order (like UUIDv7): 48 bits of
 * milliseconds, a 16-bit sequence that orders ids made in the same millisecond by this process, and 64
 * random bits. Records created in one millisecond then list in the order they were made, on every adapter.
 */
export const sortableIds: IdGenerator = (prefix) => {
  const now = Date.now();
  const high = randomWord();
  const low = randomWord();
  if (now > lastMs) {
    lastMs = now;
    sequence = high & 0x7fff; // a random start leaves room for 32,768 more ids in this millisecond
  } else if (++sequence > 0xffff) {
    lastMs++; // borrowed from the next millisecond: order is kept, time drifts by at most that
    sequence = 0;
  }
  const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0');
  return `${prefix}_${hex(lastMs, 12)}${hex(sequence, 4)}${hex(high, 8)}${hex(low, 8)}`;
};

/** A logger that drops everything; the default when the host passes none. */
export const silentLogger: Logger = { log: () => {} };

/**
 * A logger that writes one JSON object per line, the format log shippers expect.
 *
 * @example
 * const logger = jsonLogger((line) => process.stdout.write(`${line}\n`), { level: 'info' });
 */
export function jsonLogger(
  write: (line: string) => void,
  options: { level?: LogLevel; clock?: Clock } = {},
): Logger {
  const order: LogLevel[] = ['debug', 'info', 'warn', 'error'];
  const min = order.indexOf(options.level ?? 'info');
  const clock = options.clock ?? systemClock;
  return {
    log(level, message, fields) {
      if (order.indexOf(level) < min) return;
      write(JSON.stringify({ time: new Date(clock.now()).toISOString(), level, msg: message, ...fields }));
    },
  };
}

/**
 * ISO-8601 UTC text for an epoch-millisecond instant: how times go on the wire, and how business records
 * store them. Every other time in the storage port is epoch milliseconds.
 */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

/** {@link isoAt} for a time that may be absent. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/**
 * What every building block may need from the host, given to each factory as its first argument
 * (`createWebhooks(runtime, { authenticate })`), apart from the block's settings. `createSwitchboard`
 * makes one and hands it to every block; {@link createRuntime} fills in the defaults.
 */
export interface Runtime {
  /** Where records live. */
  readonly storage: Storage;
  readonly clock: Clock;
  /** The one-shot timers background loops wait on. */
  readonly timers: Timers;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** Where spans and metrics go. */
  readonly telemetry: Telemetry;
  /**
   * Outbound HTTP (webhook attempts). Undefined: the platform's own, looked up when a request is sent
   * (`node:http` with keep-alive where the runtime has it, else its `fetch`).
   */
  readonly fetch: typeof fetch | undefined;
  /** The host's name, logo and accent colour on every page the blocks serve. Default: Switchboard's. */
  readonly look?: LookOptions;
}

/** What {@link createRuntime} is given: the storage, and whatever the host wants instead of a default. */
export interface RuntimeOptions {
  readonly storage: Storage;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Default: the runtime's `setTimeout` and `clearTimeout`. */
  readonly timers?: Timers;
  /** Default: {@link sortableIds}. */
  readonly ids?: IdGenerator;
  /** Default: {@link silentLogger}. */
  readonly logger?: Logger;
  /** Default: `createTelemetry()`, the OpenTelemetry SDK registered globally (nothing when none is). */
  readonly telemetry?: Telemetry;
  /** Default: the platform's outbound HTTP, looked up when a request is sent. */
  readonly fetch?: typeof fetch;
  /** The pages' branding: checked here, so a bad accent colour stops the host at start-up. */
  readonly look?: LookOptions;
}

/**
 * The {@link Runtime} of a building block used on its own, with a default for everything but the
 * storage. Does no I/O and starts no timer: it can be called in a module's global scope.
 *
 * @example
 * const runtime = createRuntime({ storage: createMemoryStorage(), logger: jsonLogger(console.log) });
 * const domain = createDomain(runtime);
 */
export function createRuntime(options: RuntimeOptions): Runtime {
  if (options.look) checkLook(options.look);
  return {
    storage: options.storage,
    clock: options.clock ?? systemClock,
    timers: options.timers ?? systemTimers,
    ids: options.ids ?? sortableIds,
    logger: options.logger ?? silentLogger,
    telemetry: options.telemetry ?? createTelemetry(),
    fetch: options.fetch,
    ...(options.look ? { look: options.look } : {}),
  };
}

/** The look's options, checked at construction: a bad one is `bad_request` naming the option. */
function checkLook(look: LookOptions): void {
  try {
    resolveLook(look);
  } catch (error) {
    throw new SwitchboardError('bad_request', (error as Error).message, { cause: error });
  }
}

import { type Logger, silentLogger, systemTimers, type Timers } from './runtime.js';

/**
 * Options of {@link createWorkerLoop}: how to claim work from a durable queue, how to process it, and
 * how much may be in flight.
 */
export interface WorkerLoopOptions<T> {
  /** What the loop's log lines call it, e.g. `outbox relay`. */
  readonly name: string;
  /**
   * Leases up to `limit` due items to this worker, oldest due first; none when nothing is due. A lease
   * that is never acknowledged ends by itself, and the item is claimed again (at least once).
   */
  readonly claim: (limit: number) => Promise<readonly T[]>;
  /**
   * Processes claimed items and acknowledges each (done, due again later, or handed back); resolves
   * with how many it acknowledged. Those it did not keep their lease until it ends, and the loop backs
   * off as after a failure. `signal` aborts once the loop is stopping and its grace has run out.
   */
  readonly process: (items: readonly T[], signal: AbortSignal) => Promise<number>;
  /** Items in flight at most; each claim asks for the places free (in batches, all of them). */
  readonly capacity: number;
  /**
   * `batch` (default): a claim's items are processed together, in one call, one batch at a time (so
   * in queue order). `item`: one call per item, side by side, each freeing its place as it ends.
   */
  readonly unit?: 'batch' | 'item';
  /** How long a started loop waits before looking again when idle (default 1 s). */
  readonly idleMs?: number;
  /** After failures in a row the wait doubles from `idleMs`, up to this (default 30 s). */
  readonly maxBackoffMs?: number;
  readonly timers?: Timers;
  readonly logger?: Logger;
}

/**
 * A worker over a durable queue: claim (with a lease) → process → acknowledge, in the background or on
 * demand. Every durable queue runs on one (the outbox relay, the webhook dispatcher).
 */
export interface WorkerLoop {
  /**
   * Works until nothing is due and nothing is in flight; resolves with how many items were acknowledged.
   * After a failure it claims no more and resolves once what is in flight has ended.
   */
  drain(): Promise<number>;
  /**
   * Looks for work a moment later (a macrotask), if started: after a commit that queued some. Calls
   * in one turn share one look; while backing off after a failure, the back-off decides.
   */
  notify(): void;
  /**
   * Works in the background: claims whenever a place frees up or it is notified, and looks again every
   * `idleMs` (which overrides the option) when it found nothing.
   */
  start(options?: { readonly idleMs?: number }): void;
  /**
   * Stops working in the background and waits for the work in flight: up to `graceMs` (default: as
   * long as it takes), then aborts its signals and waits for it to settle. Nothing is claimed
   * meanwhile, not even by a drain under way; `drain` works again afterwards.
   */
  stop(options?: { readonly graceMs?: number }): Promise<void>;
}

/**
 * Creates a {@link WorkerLoop}. Nothing runs until `start` or `drain` is called.
 *
 * @example
 * const loop = createWorkerLoop({
 *   name: 'outbox relay',
 *   capacity: 100,
 *   claim: (limit) => storage.outbox.claim({ now: clock.now(), limit, leaseMs: 30_000 }),
 *   process: async (events) => { await publish(events); return events.length; },
 * });
 * loop.start();
 */
export function createWorkerLoop<T>(options: WorkerLoopOptions<T>): WorkerLoop {
  const { name, claim, process, capacity } = options;
  const perItem = options.unit === 'item';
  const timers = options.timers ?? systemTimers;
  const logger = options.logger ?? silentLogger;
  let idleMs = options.idleMs ?? 1_000;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;

  /** Work in flight, each resolving with how many items it acknowledged (never rejecting). */
  const running = new Set<Promise<number>>();
  const aborts = new Set<AbortController>();
  let busy = 0;
  let claiming: Promise<Promise<number>[]> | null = null;
  /** A place freed while a claim was under way: look again when it ends. */
  let again = false;
  let started = false;
  /** A stop under way: nothing is claimed, not even by a drain, until it has ended. */
  let stopping = false;
  /** The idle or back-off timer of a started loop, and the notify timer. */
  let waiting: unknown;
  let notified: unknown;
  let backingOff = false;
  /** Failures since the last success: the back-off doubles with each. */
  let inARow = 0;
  /** Every failure ever: a drain stops claiming once this moved. */
  let setbacks = 0;
  let draining: Promise<number> | null = null;
  let drainAgain = false;
  /** A look is queued for the end of this turn. */
  let refilling = false;

  function succeeded(): void {
    inARow = 0;
  }

  function failed(): void {
    inARow++;
    setbacks++;
    if (!started) return;
    backingOff = true;
    wait(Math.min(idleMs * 2 ** (inARow - 1), Math.max(idleMs, maxBackoffMs)));
  }

  /** (Re)arms the one timer of a started loop: look again after `ms`. */
  function wait(ms: number): void {
    if (waiting !== undefined) timers.clearTimeout(waiting);
    waiting = timers.setTimeout(() => {
      waiting = undefined;
      backingOff = false;
      look();
      if (started && waiting === undefined) wait(idleMs);
    }, ms);
  }

  function launch(items: readonly T[]): Promise<number> {
    const stopping = new AbortController();
    aborts.add(stopping);
    busy += items.length;
    const run: Promise<number> = process(items, stopping.signal)
      .then(
        (acknowledged) => {
          if (acknowledged < items.length) failed();
          else succeeded();
          return acknowledged;
        },
        (error: unknown) => {
          logger.log('error', `${name} failed; its items are claimed again once their lease ends`, {
            items: items.length,
            error: String(error),
          });
          failed();
          return 0;
        },
      )
      .finally(() => {
        aborts.delete(stopping);
        busy -= items.length;
        running.delete(run);
        refill();
      });
    running.add(run);
    return run;
  }

  async function claimAndLaunch(limit: number): Promise<Promise<number>[]> {
    const items = await claim(limit);
    succeeded();
    if (perItem) return items.map((item) => launch([item]));
    return items.length > 0 ? [launch(items)] : [];
  }

  /** Claims for the places free and starts the work; one claim at a time, shared by whoever asks. */
  function fill(): Promise<Promise<number>[]> {
    if (claiming) {
      again = true;
      return claiming;
    }
    const free = stopping ? 0 : placesFree();
    if (free === 0) return Promise.resolve([]);
    // `.finally` runs after this assignment, so a claim that settles at once cannot leave `claiming` set.
    const claimed = claimAndLaunch(free).finally(() => {
      claiming = null;
      if (again) {
        again = false;
        refill();
      }
    });
    claiming = claimed;
    return claimed;
  }

  /** Items a claim may ask for now. A batch takes every place: one batch at a time, in queue order. */
  function placesFree(): number {
    if (!perItem) return busy > 0 ? 0 : capacity;
    return Math.max(0, capacity - busy);
  }

  /** A started loop claims again as soon as a place frees up (a microtask: finishes in one turn share it). */
  function refill(): void {
    if (!started || backingOff || refilling) return;
    refilling = true;
    queueMicrotask(() => {
      refilling = false;
      look();
    });
  }

  function look(): void {
    if (!started || backingOff) return;
    fill().catch((error: unknown) => {
      logger.log('error', `${name} could not claim; backing off`, { error: String(error) });
      failed();
    });
  }

  async function drainOnce(): Promise<number> {
    const mine: Promise<number>[] = [];
    const before = setbacks;
    for (;;) {
      const launched = setbacks === before ? await fill() : [];
      mine.push(...launched);
      if (launched.length === 0 && running.size === 0) {
        if (!drainAgain || setbacks !== before) break;
        drainAgain = false;
        continue;
      }
      // Wait for a place (or, having claimed nothing, for the work in flight); work may already have ended.
      if (running.size > 0 && (launched.length === 0 || placesFree() === 0)) await Promise.race(running);
    }
    let total = 0;
    for (const acknowledged of await Promise.all(mine)) total += acknowledged;
    return total;
  }

  return {
    drain() {
      if (draining) {
        drainAgain = true;
        return draining;
      }
      const drained = drainOnce().finally(() => {
        draining = null;
        drainAgain = false;
      });
      draining = drained;
      return drained;
    },
    notify() {
      if (!started || backingOff || notified !== undefined) return;
      // A macrotask later: the commit that notified answers its request first.
      notified = timers.setTimeout(() => {
        notified = undefined;
        look();
      }, 0);
    },
    start(startOptions = {}) {
      if (started) return;
      idleMs = startOptions.idleMs ?? idleMs;
      started = true;
      backingOff = false;
      look();
      wait(idleMs);
    },
    async stop({ graceMs = Number.POSITIVE_INFINITY } = {}) {
      started = false;
      stopping = true;
      backingOff = false;
      for (const timer of [waiting, notified]) if (timer !== undefined) timers.clearTimeout(timer);
      waiting = notified = undefined;
      try {
        await claiming?.catch(() => []);
        if (running.size > 0 && graceMs < Number.POSITIVE_INFINITY) {
          let grace: unknown;
          await Promise.race([
            Promise.all(running),
            new Promise<void>((resolve) => {
              grace = timers.setTimeout(resolve, graceMs);
            }),
          ]);
          timers.clearTimeout(grace);
          for (const controller of aborts) controller.abort();
        }
        await Promise.all(running);
      } finally {
        stopping = false;
      }
    },
  };
}

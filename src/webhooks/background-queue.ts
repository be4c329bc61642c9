import type { Logger } from '../core/runtime.js';

export interface BackgroundQueue {
  /** Queues a task; false when the queue is full (the caller should push back, e.g. with a 503). */
  push(task: () => Promise<void>): boolean;
  /** Resolves once every queued and running task has finished. */
  drain(): Promise<void>;
}

/**
 * A bounded in-process task queue for runtimes without `waitUntil`: at most `concurrency` tasks run at
 * once and at most `maxQueued` wait. Tasks live in memory, so they are lost if the process dies.
 */
export function createBackgroundQueue(options: {
  readonly concurrency: number;
  readonly maxQueued: number;
  readonly logger: Logger;
}): BackgroundQueue {
  const waiting: (() => Promise<void>)[] = [];
  let running = 0;
  let idle: (() => void)[] = [];

  const next = (): void => {
    while (running < options.concurrency && waiting.length > 0) {
      const task = waiting.shift()!;
      running++;
      // A macrotask later, so the task never delays the response it was deferred from.
      setTimeout(() => {
        task()
          .catch((error) =>
            options.logger.log('error', 'deferred webhook work failed', { error: String(error) }),
          )
          .finally(() => {
            running--;
            next();
          });
      }, 0);
    }
    if (running === 0 && waiting.length === 0) {
      for (const resolve of idle) resolve();
      idle = [];
    }
  };

  return {
    push(task) {
      if (waiting.length >= options.maxQueued) return false;
      waiting.push(task);
      next();
      return true;
    },
    drain() {
      if (running === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },
  };
}

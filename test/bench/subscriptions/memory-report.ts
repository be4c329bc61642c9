/**
 * What a benchmark server adds so the runner can size it: the line `memory` on stdin is answered with
 * `REPLY <heapUsed> <rss>` (bytes, after a forced GC; start node with `--expose-gc`).
 */
import { createInterface } from 'node:readline';
import { setImmediate } from 'node:timers/promises';

export function answerMemoryRequests(): void {
  const gc = globalThis.gc;
  if (!gc) throw new Error('Start this server with node --expose-gc: it reports memory after a GC.');
  createInterface({ input: process.stdin }).on('line', async (line) => {
    if (line.trim() !== 'memory') return;
    // Twice, a turn apart: what the first GC frees may let finalizers drop more.
    gc();
    await setImmediate();
    gc();
    const { heapUsed, rss } = process.memoryUsage();
    process.stdout.write(`REPLY ${heapUsed} ${rss}\n`);
  });
}

/**
 * What the receiver counted, and the runner's ways to read, clear and wait on it. Deliveries are
 * judged at the receiver: a (path, event_id) pair seen once is a delivery, seen again a duplicate.
 */

export interface PathStats {
  readonly requests: number;
  /** Distinct event ids. */
  readonly unique: number;
  /** Wall-clock ms (`performance.timeOrigin + performance.now()`) of the first and last request. */
  readonly firstAt: number;
  readonly lastAt: number;
}

export interface ReceiverStats {
  readonly requests: number;
  readonly unique: number;
  readonly duplicates: number;
  readonly firstAt: number | null;
  readonly lastAt: number | null;
  readonly byPath: Readonly<Record<string, PathStats>>;
}

/** The same clock as the receiver's, so its times can be set against ours. */
export const now = (): number => performance.timeOrigin + performance.now();

export async function readStats(receiverUrl: string): Promise<ReceiverStats> {
  const response = await fetch(`${receiverUrl}/stats`);
  if (!response.ok) throw new Error(`receiver /stats answered ${response.status}`);
  return (await response.json()) as ReceiverStats;
}

export async function resetReceiver(receiverUrl: string): Promise<void> {
  const response = await fetch(`${receiverUrl}/reset`, { method: 'POST' });
  if (!response.ok) throw new Error(`receiver /reset answered ${response.status}`);
}

/** Counts over the paths `select` keeps. */
export function countPaths(stats: ReceiverStats, select: (path: string) => boolean) {
  let requests = 0;
  let unique = 0;
  let paths = 0;
  let firstAt = Number.POSITIVE_INFINITY;
  let lastAt = 0;
  for (const [path, counts] of Object.entries(stats.byPath)) {
    if (!select(path)) continue;
    paths++;
    requests += counts.requests;
    unique += counts.unique;
    firstAt = Math.min(firstAt, counts.firstAt);
    lastAt = Math.max(lastAt, counts.lastAt);
  }
  return { paths, requests, unique, duplicates: requests - unique, firstAt, lastAt };
}

/**
 * Polls `/stats` every 25 ms until `done` says so, and returns those stats; after `timeoutMs` it
 * throws with what `describe` makes of the last stats it read.
 */
export async function waitForStats(
  receiverUrl: string,
  what: string,
  done: (stats: ReceiverStats) => boolean,
  describe: (stats: ReceiverStats) => string,
  timeoutMs: number,
): Promise<ReceiverStats> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const stats = await readStats(receiverUrl);
    if (done(stats)) return stats;
    if (now() > deadline)
      throw new Error(
        `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}: ${describe(stats)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * One (mode, N) measurement on a fresh server (Switchboard, or the floor: floor.ts): its memory before
 * any connection, N subscribers opened, one warm-up message that every one of them must receive (so all
 * are live), its memory again once idle, then the timed messages, one at a time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_KEY } from '../http/fixture.js';
import { type RunningServer, type ServerSpec, startServer } from '../http/processes.js';
import { type Mode, openSubscribers } from './client.js';
import { Deliveries } from './deliveries.js';
import { NotAnEventStream } from './sse.js';
import { CHATBOT_ID } from './subscription.js';

/** `switchboard`: server.ts; `floor`: floor.ts, the same fan-out with no GraphQL. */
export type Target = 'switchboard' | 'floor';

export interface Result {
  readonly server: Target;
  readonly mode: Mode;
  readonly subscribers: number;
  /** WebSockets or event streams open. */
  readonly connections: number;
  readonly openSeconds: number;
  readonly delivered: number;
  readonly expected: number;
  /** Latency of every (subscriber, message) delivered, ms. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Server memory growth divided by the live subscribers, bytes (after a forced GC). */
  readonly heapPerSubscriber: number;
  readonly rssPerSubscriber: number;
  /** Subscribers that failed to open or stopped before the end. */
  readonly failures: number;
  readonly reasons: Readonly<Record<string, number>>;
  /** Why nothing could be measured (e.g. the server refuses the transport). */
  readonly error?: string;
}

/** How long one message may take to reach every subscriber before the missing ones are counted. */
const MESSAGE_TIMEOUT_MS = 30_000;
const WARM_UP = 'bench warm-up';
/** Quiet time after the warm-up message, before memory is read. */
const IDLE_MS = 1_000;

const SERVERS: Readonly<Record<Target, ServerSpec>> = {
  switchboard: {
    name: 'switchboard',
    script: '../subscriptions/server.ts',
    authenticates: true,
    listsClients: false,
    nodeFlags: ['--expose-gc'],
  },
  floor: {
    name: 'floor',
    script: '../subscriptions/floor.ts',
    authenticates: false,
    listsClients: false,
    nodeFlags: ['--expose-gc'],
  },
};

export async function measure(
  target: Target,
  mode: Mode,
  n: number,
  messages: number,
  log: (line: string) => void,
  cpuProfDir?: string,
): Promise<Result> {
  const spec = SERVERS[target];
  const profile = cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [];
  const server = await startServer({ ...spec, nodeFlags: [...(spec.nodeFlags ?? []), ...profile] });
  const deliveries = new Deliveries(n);
  try {
    const before = await memoryOf(server);
    const started = performance.now();
    let fleet: Awaited<ReturnType<typeof openSubscribers>>;
    try {
      fleet = await openSubscribers(server.url, mode, n, deliveries);
    } catch (error) {
      const message = (error as Error).message;
      const why =
        error instanceof NotAnEventStream
          ? `not supported: the server answers a subscription over SSE with ${message}`
          : `the first connection failed: ${message}`;
      return unmeasured(target, mode, n, messages, why);
    }
    const openSeconds = (performance.now() - started) / 1_000;
    try {
      log(`  ${target} ${mode} N=${n}: ${fleet.connections} connections open in ${openSeconds.toFixed(1)} s`);
      const warmUp = await deliveries.deliver(WARM_UP, () => post(server, WARM_UP), MESSAGE_TIMEOUT_MS);
      for (const i of warmUp.missing) deliveries.failed(i, 'no warm-up message within 30 s');
      await sleep(IDLE_MS);
      const after = await memoryOf(server);
      const live = Math.max(1, n - deliveries.failures);

      const latencies: number[] = [];
      for (let seq = 1; seq <= messages; seq++) {
        const content = `bench message ${seq}`;
        const round = await deliveries.deliver(content, () => post(server, content), MESSAGE_TIMEOUT_MS);
        for (const latency of round.latencies) latencies.push(latency);
        if (round.missing.length)
          log(`  message ${seq}: ${round.missing.length} live subscribers without it after 30 s`);
      }
      latencies.sort((a, b) => a - b);
      return {
        server: target,
        mode,
        subscribers: n,
        connections: fleet.connections,
        openSeconds,
        delivered: latencies.length,
        expected: n * messages,
        p50: percentile(latencies, 0.5),
        p99: percentile(latencies, 0.99),
        max: latencies.at(-1) ?? Number.NaN,
        heapPerSubscriber: (after.heapUsed - before.heapUsed) / live,
        rssPerSubscriber: (after.rss - before.rss) / live,
        failures: deliveries.failures,
        reasons: Object.fromEntries(deliveries.reasons),
      };
    } finally {
      fleet.close();
    }
  } finally {
    await server.stop();
  }
}

function unmeasured(target: Target, mode: Mode, n: number, messages: number, error: string): Result {
  const nan = Number.NaN;
  return {
    server: target,
    mode,
    subscribers: n,
    connections: 0,
    openSeconds: nan,
    delivered: 0,
    expected: n * messages,
    p50: nan,
    p99: nan,
    max: nan,
    heapPerSubscriber: nan,
    rssPerSubscriber: nan,
    failures: n,
    reasons: {},
    error,
  };
}

/** Nearest rank. */
function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]! : Number.NaN;
}

async function memoryOf(server: RunningServer): Promise<{ heapUsed: number; rss: number }> {
  const [heapUsed, rss] = (await server.ask('memory')).split(' ').map(Number);
  return { heapUsed: heapUsed!, rss: rss! };
}

async function post(server: RunningServer, content: string): Promise<void> {
  const response = await fetch(`${server.url}/api/v1/chatbots/${CHATBOT_ID}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ visitorId: 'bench-visitor', content }),
  });
  if (response.status !== 201)
    throw new Error(`POST message: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
  await response.arrayBuffer();
}

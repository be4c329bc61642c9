/**
 * What the pipeline scenarios (burst, sustained, fanout) share: the storage a Switchboard server runs
 * on, starting one (a new process per round, so each starts fresh), and tidying up after a round —
 * endpoints deleted through the API (a PostgreSQL database outlives the server) and the receiver reset.
 */
import { type RunningServer, startServer } from '../http/processes.js';
import { deleteEndpoint } from './api.js';
import type { BenchOptions } from './options.js';
import { now, resetReceiver } from './stats.js';

export interface Stack {
  readonly name: 'memory' | 'postgres';
  readonly env: Readonly<Record<string, string>>;
}

export interface PipelineContext {
  readonly stack: Stack;
  readonly receiver: RunningServer;
  readonly options: BenchOptions;
  readonly log: (line: string) => void;
}

/** processes.ts's flags are for test/bench/http's answer checks, which this runner does not make. */
export const NO_CHECKS = { authenticates: false, listsClients: false } as const;

/** Admin calls in flight at once when registering or deleting many endpoints. */
export const ADMIN_PARALLEL = 8;

export function startSwitchboard(
  context: PipelineContext,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningServer> {
  const { maxPerEndpoint } = context.options;
  return startServer({
    name: `switchboard (${context.stack.name})`,
    script: '../webhooks/server.ts',
    env: {
      ...context.stack.env,
      BENCH_CONCURRENCY: String(context.options.concurrency),
      ...(maxPerEndpoint ? { BENCH_MAX_PER_ENDPOINT: String(maxPerEndpoint) } : {}),
      ...env,
    },
    ...NO_CHECKS,
  });
}

/** Runs `task` over `items`, `parallel` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  parallel: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
}

/** Generous: a minute, plus 20 ms per delivery awaited. */
export const patience = (deliveries: number): number => 60_000 + deliveries * 20;

/** Deletes the endpoints (logging when that is slow), stops the server, clears the receiver. */
export async function endRound(
  context: PipelineContext,
  server: RunningServer,
  endpointIds: readonly string[],
): Promise<void> {
  const started = now();
  await eachLimited(endpointIds, ADMIN_PARALLEL, (id) => deleteEndpoint(server, id));
  const ms = now() - started;
  if (ms > 1_000)
    context.log(`    deleting ${endpointIds.length} endpoint(s) took ${(ms / 1000).toFixed(1)} s`);
  await server.stop();
  await resetReceiver(context.receiver.url);
}

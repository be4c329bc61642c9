/**
 * Burst: N events queued for one endpoint, then sent as fast as the dispatcher goes, against the fetch
 * loop sending the same N signed requests. Rounds alternate (Switchboard, fetch loop, Switchboard, …),
 * each sender in a fresh process, so a drift of the machine falls on both.
 *
 * A Switchboard round: a server started paused, one endpoint, N clients created by autocannon (all
 * must be 201), then `POST /__bench/start` and the clock runs until the receiver has N distinct events.
 * The outbox relay already fans events out while paused (its kick does not wait for `start()`), so the
 * round waits until the endpoint has N pending deliveries first: the timing is the dispatcher's alone.
 */
import { pendingDeliveries, registerEndpoint, startDispatch } from './api.js';
import { createClients, problemsOf } from './load.js';
import { runFetchLoop } from './peer.js';
import { endRound, type PipelineContext, patience, startSwitchboard } from './pipeline.js';
import { countPaths, now, readStats, resetReceiver, waitForStats } from './stats.js';

export interface BurstRound {
  /** Distinct events delivered per second. */
  readonly rate: number;
  readonly seconds: number;
  /** From the start request to the first arrival (Switchboard only). */
  readonly firstMs: number | undefined;
  readonly duplicates: number;
}

export interface BurstResult {
  readonly storage: string;
  readonly events: number;
  readonly switchboard: readonly BurstRound[];
  readonly fetchLoop: readonly BurstRound[];
  /** ms from the last create's answer until all N deliveries were queued, per Switchboard round. */
  readonly queuedAfterMs: readonly number[];
}

const PATH = '/burst';
const PEER_PATH = '/peer';

export async function runBurst(context: PipelineContext): Promise<BurstResult> {
  const { events, rounds, concurrency } = context.options;
  const result = {
    storage: context.stack.name,
    events,
    switchboard: [] as BurstRound[],
    fetchLoop: [] as BurstRound[],
    queuedAfterMs: [] as number[],
  };
  for (let r = 1; r <= rounds; r++) {
    const round = await switchboardRound(context, result.queuedAfterMs);
    result.switchboard.push(round);
    const queued = Math.round(result.queuedAfterMs.at(-1)!);
    context.log(
      `  burst (${context.stack.name}) round ${r}/${rounds}  switchboard ${perSecond(round)} ` +
        `(all queued ${queued} ms after the last create)`,
    );
    const peer = await fetchLoopRound(context, events, concurrency);
    result.fetchLoop.push(peer);
    context.log(`  burst (${context.stack.name}) round ${r}/${rounds}  fetch loop ${perSecond(peer)}`);
  }
  return result;
}

async function switchboardRound(context: PipelineContext, queuedAfterMs: number[]): Promise<BurstRound> {
  const { events, connections } = context.options;
  const receiver = context.receiver.url;
  const server = await startSwitchboard(context, { BENCH_PAUSED: '1' });
  const endpointId = await registerEndpoint(server, `${receiver}${PATH}`);
  const load = await createClients(server, connections, { amount: events });
  const problems = problemsOf(load);
  if (problems || load.created !== events)
    throw new Error(`burst: ${load.created} of ${events} creates answered 201 (${problems ?? 'no errors'})`);
  const created = now();
  const deadline = created + patience(events);
  for (;;) {
    const pending = await pendingDeliveries(server, endpointId);
    if (pending >= events) break;
    if (now() > deadline) throw new Error(`burst: only ${pending} of ${events} deliveries were ever queued`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  queuedAfterMs.push(now() - created);

  const started = now();
  await startDispatch(server);
  const stats = await waitForStats(
    receiver,
    `${events} deliveries to ${PATH}`,
    (s) => (s.byPath[PATH]?.unique ?? 0) >= events,
    (s) => `${s.byPath[PATH]?.unique ?? 0} distinct events, ${s.duplicates} duplicates`,
    patience(events),
  );
  const counts = countPaths(stats, (path) => path === PATH);
  await endRound(context, server, [endpointId]);
  return roundOf(events, counts.lastAt - started, counts.firstAt - started, counts.duplicates);
}

async function fetchLoopRound(
  context: PipelineContext,
  events: number,
  concurrency: number,
): Promise<BurstRound> {
  const receiver = context.receiver.url;
  const run = await runFetchLoop(`${receiver}${PEER_PATH}`, events, concurrency);
  const counts = countPaths(await readStats(receiver), (path) => path === PEER_PATH);
  if (run.ok !== events || counts.unique !== events)
    throw new Error(`fetch loop: ${run.ok} of ${events} answered 2xx, ${counts.unique} arrived`);
  await resetReceiver(receiver);
  return roundOf(events, run.elapsedMs, undefined, counts.duplicates);
}

function roundOf(events: number, ms: number, firstMs: number | undefined, duplicates: number): BurstRound {
  return { rate: events / (ms / 1000), seconds: ms / 1000, firstMs, duplicates };
}

const perSecond = (round: BurstRound): string =>
  `${Math.round(round.rate).toLocaleString('en-US')}/s in ${round.seconds.toFixed(2)} s`;

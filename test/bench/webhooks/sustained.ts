/**
 * Sustained: clients created by autocannon for `--duration` seconds while a started server delivers
 * each `client.created` to one endpoint. The receiver is sampled every second during the load; when
 * it stops, the backlog (creates − delivered) is read, then the clock runs until it is empty. Every
 * created client must arrive exactly once. Creates are counted by the server (its client total), not
 * by autocannon's 2xx: a request cut off when autocannon stops may still have created its client.
 * On PostgreSQL, `--instances N` starts N servers on the one database (each its own relay and
 * dispatcher, as app instances behind a load balancer) and splits the load between them.
 */
import type { RunningServer } from '../http/processes.js';
import { clientTotal, registerEndpoint } from './api.js';
import { createClientsAcross, problemsOf } from './load.js';
import { endRound, type PipelineContext, patience, startSwitchboard } from './pipeline.js';
import { countPaths, now, readStats, waitForStats } from './stats.js';

export interface SustainedResult {
  readonly storage: string;
  /** Switchboard processes sharing the storage, each taking its share of the load. */
  readonly instances: number;
  readonly seconds: number;
  /** Creates answered 2xx, per second of load. */
  readonly createRate: number;
  /** Problems of the load (non-2xx, connection errors), if any. */
  readonly problems: string | undefined;
  /** Distinct events delivered per second during the load, overall and per 1 s sample. */
  readonly deliveryRate: number;
  readonly sampleRates: readonly number[];
  /** Creates answered 2xx minus events delivered, when the load stopped. */
  readonly backlogAtStop: number;
  /** Seconds from the end of the load until the last event arrived. */
  readonly drainSeconds: number;
  /** Clients the server created, events delivered (distinct) and duplicates. */
  readonly created: number;
  readonly delivered: number;
  readonly duplicates: number;
}

const PATH = '/sustained';

export async function runSustained(context: PipelineContext): Promise<SustainedResult> {
  const { duration, connections } = context.options;
  const receiver = context.receiver.url;
  // Memory storage cannot be shared between processes, so it always runs on one.
  const instances = context.stack.name === 'postgres' ? context.options.instances : 1;
  const servers = await Promise.all(Array.from({ length: instances }, () => startSwitchboard(context)));
  // The database is shared: any instance registers the endpoint and counts the clients for all.
  const server = servers[0]!;
  const endpointId = await registerEndpoint(server, `${receiver}${PATH}`);
  // A PostgreSQL database keeps the clients of earlier scenarios.
  const before = await clientTotal(server);

  const samples: { at: number; unique: number }[] = [{ at: now(), unique: 0 }];
  let loading = true;
  const sampler = setInterval(() => {
    void readStats(receiver).then((s) => {
      if (loading) samples.push({ at: now(), unique: s.byPath[PATH]?.unique ?? 0 });
    });
  }, 1_000);
  const load = await createClientsAcross(servers, connections, duration).finally(() => {
    loading = false;
    clearInterval(sampler);
  });
  const stopped = now();
  const atStop = countPaths(await readStats(receiver), (path) => path === PATH);
  context.log(
    `  sustained (${context.stack.name}${instances > 1 ? `, ${instances} instances` : ''}) ` +
      `${load.created.toLocaleString('en-US')} creates, ` +
      `${atStop.unique.toLocaleString('en-US')} delivered when the load stopped`,
  );

  const created = (await settledTotal(server)) - before;
  const stats = await waitForStats(
    receiver,
    `${created} deliveries to ${PATH} after the load`,
    (s) => (s.byPath[PATH]?.unique ?? 0) >= created,
    (s) => `${s.byPath[PATH]?.unique ?? 0} distinct events, ${s.duplicates} duplicates`,
    patience(created),
  );
  const end = countPaths(stats, (path) => path === PATH);
  await Promise.all(servers.slice(1).map((other) => other.stop()));
  await endRound(context, server, [endpointId]);

  const sampleRates = samples
    .slice(1)
    .map((sample, i) => (sample.unique - samples[i]!.unique) / ((sample.at - samples[i]!.at) / 1000));
  return {
    storage: context.stack.name,
    instances,
    seconds: load.seconds,
    createRate: load.created / load.seconds,
    problems: problemsOf(load),
    deliveryRate: atStop.unique / load.seconds,
    sampleRates,
    backlogAtStop: load.created - atStop.unique,
    drainSeconds: Math.max(0, end.lastAt - stopped) / 1000,
    created,
    delivered: end.unique,
    duplicates: end.duplicates,
  };
}

/** The client total once it stops moving (requests autocannon cut off may still be committing). */
async function settledTotal(server: RunningServer): Promise<number> {
  let total = await clientTotal(server);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const again = await clientTotal(server);
    if (again === total) return total;
    total = again;
  }
}

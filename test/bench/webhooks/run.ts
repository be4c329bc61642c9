/**
 * Switchboard's webhook pipeline measured across processes: a receiver (receiver.ts), Switchboard
 * servers (server.ts, a fresh one per round) and the fetch-loop peer (fetch-loop.ts) each in their own
 * process, autocannon creating clients from this one, over loopback. Run on demand, never by `npm test`:
 *
 *   npm run bench:webhooks                                     # everything, in memory
 *   npm run bench:webhooks -- --events 1000 --rounds 2 --duration 5 --endpoints 50   # quicker
 *   npm run bench:webhooks -- --only burst,sign                # some scenarios
 *   npm run bench:webhooks -- --only ordered --events 2000     # ordered delivery beside unordered
 *   npm run bench:webhooks -- --pg                             # also on PostgreSQL (throwaway cluster)
 *   npm run bench:webhooks -- --pg --only sustained --instances 2   # 2 servers, one database
 *   DATABASE_URL=postgres://… npm run bench:webhooks           # same, on a throwaway database there
 *   npm run bench:webhooks -- --json results.json
 *
 * Scenarios: burst (a queue of N events drained by the dispatcher vs the fetch loop sending the same
 * signed requests), sustained (creates under load, deliveries keeping up, backlog, exactly once), sign
 * (sign + verify in this process vs standardwebhooks and node:crypto) and fanout (one event to many
 * endpoints, one of them hanging) and ordered (events 10 per subject to an endpoint without ordering and
 * to one ordered by subject: what ordered delivery costs). On a small machine the absolute rates are low: compare ratios.
 */
import { writeFile } from 'node:fs/promises';
import { type BenchDatabase, openBenchDatabase } from '../http/postgres.js';
import { startServer, stopAll } from '../http/processes.js';
import { runBurst } from './burst.js';
import { runFanout } from './fanout.js';
import { type BenchOptions, parseOptions, USAGE, UsageError } from './options.js';
import { formatOrdered, runOrdered } from './ordered.js';
import { stopPeers } from './peer.js';
import { NO_CHECKS, type PipelineContext, type Stack } from './pipeline.js';
import {
  burstSummary,
  formatBurst,
  formatFanout,
  formatSign,
  formatSustained,
  machine,
  signSummary,
} from './report.js';
import { runSign } from './sign.js';
import { runSustained } from './sustained.js';

const PIPELINE = {
  burst: async (context: PipelineContext) => {
    const result = await runBurst(context);
    return { lines: formatBurst(result), json: { ...result, summary: burstSummary(result) } };
  },
  sustained: async (context: PipelineContext) => {
    const result = await runSustained(context);
    return { lines: formatSustained(result), json: result };
  },
  fanout: async (context: PipelineContext) => {
    const result = await runFanout(context);
    return { lines: formatFanout(result), json: result };
  },
  ordered: async (context: PipelineContext) => {
    const result = await runOrdered(context);
    return { lines: formatOrdered(result), json: result };
  },
} as const;

// Module-wide, so an interruption can drop it too (once: the interruption and main's finally both try).
let database: BenchDatabase | undefined;
let closing: Promise<void> | undefined;
function closeDatabase(): Promise<void> {
  if (database && !closing) closing = database.close();
  return closing ?? Promise.resolve();
}
let interrupted = false;

async function main(options: BenchOptions): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const out = (lines: readonly string[]): void => void process.stdout.write(`${lines.join('\n')}\n`);
  out([
    `Switchboard webhooks over the wire: ${machine()}`,
    `receiver, Switchboard (a fresh process per round) and fetch loop in processes of their own; autocannon ` +
      `in the runner, ${options.connections} connections; dispatcher concurrency ${options.concurrency}, ` +
      `maxPerEndpoint ${options.maxPerEndpoint ?? 'at its default'}; fetch loop ${options.concurrency} in flight` +
      (options.instances > 1
        ? `; sustained on PostgreSQL by ${options.instances} Switchboard processes sharing the database, ` +
          'the connections split between them'
        : ''),
    '',
  ]);
  const results: Record<string, unknown[]> = {};
  try {
    // Only the pipeline scenarios need a receiver and a database; sign runs in this process.
    const pipeline = options.only.some((id) => id !== 'sign');
    const receiver = pipeline
      ? await startServer({ name: 'receiver', script: '../webhooks/receiver.ts', ...NO_CHECKS })
      : undefined;
    if (pipeline && options.postgres) database = await openBenchDatabase(options.databaseUrl);
    const stacks: Stack[] = [
      { name: 'memory', env: {} },
      ...(database ? [{ name: 'postgres' as const, env: { DATABASE_URL: database.url } }] : []),
    ];
    for (const id of options.only) {
      if (id === 'sign') {
        const result = await runSign(options.rounds * 2, log);
        out(formatSign(result));
        results.sign = [{ ...result, summary: signSummary(result) }];
        continue;
      }
      for (const stack of stacks) {
        const { lines, json } = await PIPELINE[id]({ stack, receiver: receiver!, options, log });
        out(lines);
        results[id] = [...(results[id] ?? []), json];
      }
    }
  } finally {
    stopPeers();
    await stopAll();
    await closeDatabase();
  }
  if (options.json) {
    const settings = { ...options, databaseUrl: undefined };
    await writeFile(options.json, `${JSON.stringify({ machine: machine(), settings, results }, null, 2)}\n`);
    out([`Results written to ${options.json}`]);
  }
}

// Ctrl+C stops the servers, the fetch loop and the throwaway database instead of leaving them behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    stopPeers();
    void stopAll()
      .then(closeDatabase)
      .finally(() => process.exit(130));
  });
}

try {
  await main(parseOptions(process.argv.slice(2), process.env));
} catch (error) {
  // Interrupted: what failed was cut off on purpose; the signal handler ends the process.
  if (interrupted) await new Promise(() => {});
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`${error.message ? `${error.message}\n` : ''}${USAGE}\n`);
  process.exitCode = error.message ? 64 : 0;
}

/** The runner's command line. */
import { parseArgs } from 'node:util';
import { SCENARIO_IDS, type ScenarioId } from './scenarios.js';

export interface BenchOptions {
  /** Seconds per counted round. */
  readonly duration: number;
  readonly rounds: number;
  /** Seconds of the uncounted warm-up round per server and scenario. */
  readonly warmUp: number;
  readonly connections: number;
  /** Each round holds to this many requests per second; the CPU per answer is then the figure to compare. */
  readonly rate: number | undefined;
  readonly only: readonly ScenarioId[];
  /** Also run the adapter floors (test/bench/http/adapter.ts) beside the peers. */
  readonly floors: boolean;
  /** Also compare Switchboard on PostgreSQL with Switchboard in memory. */
  readonly postgres: boolean;
  /**
   * Also Switchboard with its default rate limits vs without (and on PostgreSQL, with --pg), and REST
   * against Fastify with @fastify/rate-limit.
   */
  readonly limits: boolean;
  /** Also Switchboard with the OpenTelemetry SDK on (every span sampled) vs off. */
  readonly otel: boolean;
  /** The PostgreSQL server to make a throwaway database on; a throwaway cluster when absent. */
  readonly databaseUrl: string | undefined;
  readonly json: string | undefined;
}

export const USAGE = `usage: npm run bench:http -- [options]
  --duration <s>      seconds per counted round (default 5)
  --rounds <n>        counted rounds per server and scenario, at least 3 (default 5)
  --warmup <s>        seconds of the uncounted warm-up round (default: --duration)
  --connections <n>   autocannon connections (default 10)
  --rate <n>          hold every round to n requests per second (one every server sustains), and compare
                      the servers' CPU per answer: the work a request costs, without the waiting a
                      saturated run adds (Linux; the CPU per answer is printed in every run)
  --only <ids>        comma-separated: ${SCENARIO_IDS.join(', ')} (default all)
  --floors            also Switchboard's Node adapter answering precomputed bytes (and serialising them)
  --pg                also Switchboard on PostgreSQL vs in memory (on when DATABASE_URL is set)
  --limits            also Switchboard with its rate limits (the default) vs without (and on PostgreSQL with
                      --pg), and REST against Fastify with @fastify/rate-limit
  --otel              also Switchboard with the OpenTelemetry SDK on (every span sampled) vs off
  --json <path>       write the results as JSON there`;

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '5' },
      warmup: { type: 'string' },
      connections: { type: 'string', default: '10' },
      rate: { type: 'string' },
      only: { type: 'string', default: SCENARIO_IDS.join(',') },
      floors: { type: 'boolean', default: false },
      pg: { type: 'boolean', default: false },
      limits: { type: 'boolean', default: false },
      otel: { type: 'boolean', default: false },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) throw new UsageError('');
  const duration = positive('--duration', values.duration);
  const rounds = positive('--rounds', values.rounds);
  if (!Number.isInteger(rounds) || rounds < 3)
    throw new UsageError('--rounds must be a whole number, at least 3.');
  const only = values.only.split(',').map((id) => id.trim());
  const unknown = only.filter((id) => !(SCENARIO_IDS as readonly string[]).includes(id));
  if (unknown.length) throw new UsageError(`--only does not know ${unknown.join(', ')}.`);
  const databaseUrl = env.DATABASE_URL || undefined;
  return {
    duration,
    rounds,
    warmUp: values.warmup === undefined ? duration : positive('--warmup', values.warmup),
    connections: positive('--connections', values.connections),
    rate: values.rate === undefined ? undefined : positive('--rate', values.rate),
    only: only as ScenarioId[],
    floors: values.floors,
    postgres: values.pg || databaseUrl !== undefined,
    limits: values.limits,
    otel: values.otel,
    databaseUrl,
    json: values.json,
  };
}

/** A command line that cannot run; its message (empty for --help) is shown above the usage. */
export class UsageError extends Error {}

export function positive(flag: string, value: string): number {
  const number = Number(value);
  if (!(number > 0)) throw new UsageError(`${flag} must be a positive number (got "${value}").`);
  return number;
}

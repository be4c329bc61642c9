/** The runner's command line. */
import { parseArgs } from 'node:util';
import { positive, UsageError } from '../http/options.js';

export { UsageError };

export const SCENARIO_IDS = ['burst', 'sustained', 'sign', 'fanout', 'ordered'] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];

export interface BenchOptions {
  readonly only: readonly ScenarioId[];
  /** Also run the pipeline scenarios on PostgreSQL (memory always runs). */
  readonly postgres: boolean;
  /** The PostgreSQL server to make a throwaway database on; a throwaway cluster when absent. */
  readonly databaseUrl: string | undefined;
  /** Events per burst. */
  readonly events: number;
  /** Interleaved rounds (burst), and half the timed rounds per signer (sign). */
  readonly rounds: number;
  /** Seconds of sustained load. */
  readonly duration: number;
  /** autocannon connections creating clients (split between the instances in sustained). */
  readonly connections: number;
  /** Switchboard processes sharing the PostgreSQL database in sustained (memory runs on one). */
  readonly instances: number;
  /** The fetch loop's requests in flight, and the dispatcher's `concurrency`. */
  readonly concurrency: number;
  /** Endpoints in the fan-out. */
  readonly endpoints: number;
  /** The dispatcher's `maxPerEndpoint` (env BENCH_MAX_PER_ENDPOINT); its default when absent. */
  readonly maxPerEndpoint: number | undefined;
  readonly json: string | undefined;
}

export const USAGE = `usage: npm run bench:webhooks -- [options]
  --only <ids>        comma-separated: ${SCENARIO_IDS.join(', ')} (default all)
  --pg                also every pipeline scenario on PostgreSQL (on when DATABASE_URL is set)
  --events <n>        events per burst, and per ordered round (10 per subject) (default 10000)
  --rounds <n>        interleaved burst rounds per sender; sign runs twice as many (default 3)
  --duration <s>      seconds of sustained load (default 60)
  --connections <n>   autocannon connections creating clients (default 50)
  --instances <n>     sustained on PostgreSQL: Switchboard processes sharing the database, the load and
                      the connections split between them (default 1; needs --pg; memory runs on one)
  --concurrency <n>   fetch loop requests in flight and dispatcher concurrency (default 64, the dispatcher's)
  --endpoints <n>     endpoints in the fan-out, plus one slow one (default 1000)
  --json <path>       write the results as JSON there
environment: DATABASE_URL (see --pg); BENCH_MAX_PER_ENDPOINT sets the dispatcher's maxPerEndpoint`;

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      only: { type: 'string', default: SCENARIO_IDS.join(',') },
      pg: { type: 'boolean', default: false },
      events: { type: 'string', default: '10000' },
      rounds: { type: 'string', default: '3' },
      duration: { type: 'string', default: '60' },
      connections: { type: 'string', default: '50' },
      instances: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '64' },
      endpoints: { type: 'string', default: '1000' },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) throw new UsageError('');
  const only = values.only.split(',').map((id) => id.trim());
  const unknown = only.filter((id) => !(SCENARIO_IDS as readonly string[]).includes(id));
  if (unknown.length) throw new UsageError(`--only does not know ${unknown.join(', ')}.`);
  const databaseUrl = env.DATABASE_URL || undefined;
  const postgres = values.pg || databaseUrl !== undefined;
  const connections = whole('--connections', values.connections);
  const instances = whole('--instances', values.instances);
  // Memory storage lives in one process: a second instance would see none of the first one's data.
  if (instances > 1 && !postgres)
    throw new UsageError(
      '--instances above 1 needs --pg (memory storage cannot be shared between processes).',
    );
  if (connections < instances)
    throw new UsageError(`--connections (${connections}) must be at least --instances (${instances}).`);
  return {
    only: only as ScenarioId[],
    postgres,
    databaseUrl,
    events: whole('--events', values.events),
    rounds: whole('--rounds', values.rounds),
    duration: positive('--duration', values.duration),
    connections,
    instances,
    concurrency: whole('--concurrency', values.concurrency),
    endpoints: whole('--endpoints', values.endpoints),
    maxPerEndpoint: env.BENCH_MAX_PER_ENDPOINT
      ? whole('BENCH_MAX_PER_ENDPOINT', env.BENCH_MAX_PER_ENDPOINT)
      : undefined,
    json: values.json,
  };
}

function whole(flag: string, value: string): number {
  const number = positive(flag, value);
  if (!Number.isInteger(number)) throw new UsageError(`${flag} must be a whole number (got "${value}").`);
  return number;
}

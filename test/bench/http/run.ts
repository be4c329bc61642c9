/**
 * Switchboard measured over the wire: every server in its own process, load from autocannon in this
 * one, over loopback. Run on demand, never by `npm test`:
 *
 *   npm run bench:http                              # every scenario, 5 rounds of 5 s
 *   npm run bench:http -- --duration 2 --rounds 3   # quicker
 *   npm run bench:http -- --only graphql,rest-get   # some scenarios
 *   npm run bench:http -- --pg                      # also PostgreSQL vs memory (throwaway cluster)
 *   npm run bench:http -- --limits --pg             # also rate limits on vs off, in memory and on PostgreSQL
 *   npm run bench:http -- --otel                    # also the OpenTelemetry SDK on vs off
 *   npm run bench:http -- --only rest-get --rate 12000   # CPU per answer at a rate every server holds
 *   DATABASE_URL=postgres://… npm run bench:http    # same, on a throwaway database of that server
 *   npm run bench:http -- --json results.json
 *
 * Groups: GraphQL (Switchboard, graphql-yoga, raw node:http), REST (Switchboard, Hono, raw node:http),
 * MCP (`tools/call get_client` beside `GET /api/v1/clients/{id}` on one Switchboard) and, with PostgreSQL, Switchboard on PostgreSQL vs in memory. The load generator takes a core of its
 * own, so on a small machine the absolute rates are low: the ratios are the result.
 */
import { writeFile } from 'node:fs/promises';
import { arch, cpus, platform } from 'node:os';
import { type GroupPlan, type GroupResult, runGroup } from './measure.js';
import { type BenchOptions, parseOptions, USAGE, UsageError } from './options.js';
import { type BenchDatabase, openBenchDatabase } from './postgres.js';
import { type ServerSpec, stopAll } from './processes.js';
import { formatGroup, summarize } from './report.js';
import { SCENARIOS } from './scenarios.js';

const switchboard: ServerSpec = {
  name: 'switchboard',
  script: 'switchboard.ts',
  authenticates: true,
  listsClients: true,
};
const raw: ServerSpec = { name: 'raw', script: 'raw.ts', authenticates: false, listsClients: false };
const fastify: ServerSpec = {
  name: 'fastify',
  script: 'fastify.ts',
  authenticates: true,
  listsClients: false,
};
// The floors (--floors): Switchboard's adapter answering precomputed bytes, and also serialising them.
const adapter: ServerSpec = {
  name: 'adapter',
  script: 'adapter.ts',
  authenticates: false,
  listsClients: false,
};
const adapterJson: ServerSpec = { ...adapter, name: 'adapter+json', env: { BENCH_STRINGIFY: '1' } };

function plans(options: BenchOptions, database: BenchDatabase | undefined): GroupPlan[] {
  const chosen = SCENARIOS.filter((s) => options.only.includes(s.id));
  const graphql = chosen.filter((s) => s.id === 'graphql');
  const rest = chosen.filter((s) => s.id !== 'graphql' && s.id !== 'mcp');
  const mcp = chosen.filter((s) => s.id === 'mcp');
  const restGet = SCENARIOS.find((s) => s.id === 'rest-get')!;
  const groups: GroupPlan[] = [];
  if (graphql.length) {
    const yoga = { name: 'yoga', script: 'yoga.ts', authenticates: true, listsClients: false };
    const mercurius = {
      name: 'mercurius-jit',
      script: 'mercurius.ts',
      authenticates: true,
      listsClients: false,
    };
    groups.push({
      id: 'graphql',
      title: 'GraphQL: Switchboard vs graphql-yoga vs Mercurius + graphql-jit vs raw node:http',
      servers: [switchboard, yoga, mercurius, raw, ...(options.floors ? [adapter, adapterJson] : [])],
      scenarios: graphql,
    });
  }
  if (rest.length) {
    const hono = { name: 'hono', script: 'hono.ts', authenticates: true, listsClients: false };
    groups.push({
      id: 'rest',
      title: 'REST: Switchboard vs Hono vs Fastify vs raw node:http',
      servers: [switchboard, hono, fastify, raw, ...(options.floors ? [adapter] : [])],
      scenarios: rest,
    });
  }
  if (mcp.length) {
    groups.push({
      id: 'mcp',
      title: 'MCP vs REST: the same client read on the same Switchboard, MCP over REST',
      servers: [switchboard],
      scenarios: mcp,
      against: restGet,
    });
  }
  // Rate limits are on by default: the same server with them off shows what taking from them costs.
  const unlimited = (spec: ServerSpec): ServerSpec => ({
    ...spec,
    name: `${spec.name}-no-limits`,
    env: { ...spec.env, BENCH_RATE_LIMITS: '0' },
  });
  if (options.limits) {
    groups.push({
      id: 'limits',
      title: 'Switchboard with rate limits (default) vs without, in memory',
      servers: [switchboard, unlimited(switchboard)],
      scenarios: chosen,
    });
  }
  if (options.limits && rest.length) {
    // Fastify with the budgets Switchboard keeps on by default (@fastify/rate-limit, per caller).
    groups.push({
      id: 'limits-peer',
      title: 'REST with budgets on both sides: Switchboard vs Fastify + @fastify/rate-limit vs Fastify',
      servers: [
        switchboard,
        { ...fastify, name: 'fastify+limits', env: { BENCH_PEER_LIMITS: '1' } },
        fastify,
      ],
      scenarios: rest,
    });
  }
  if (options.limits && database) {
    const postgres = { ...switchboard, name: 'postgres', env: { DATABASE_URL: database.url } };
    groups.push({
      id: 'limits-postgres',
      title: 'Switchboard with rate limits (default) vs without, on PostgreSQL',
      servers: [postgres, unlimited(postgres)],
      scenarios: chosen,
    });
  }
  if (options.otel) {
    groups.push({
      id: 'otel',
      title: 'Switchboard with the OpenTelemetry SDK off (default) vs on, every span sampled',
      servers: [switchboard, { ...switchboard, name: 'otel-sdk', env: { BENCH_OTEL: '1' } }],
      scenarios: chosen,
    });
  }
  if (database) {
    const postgres = { ...switchboard, name: 'postgres', env: { DATABASE_URL: database.url } };
    groups.push({
      id: 'postgres',
      title: 'Switchboard on PostgreSQL vs in memory',
      servers: [postgres, { ...switchboard, name: 'memory' }],
      scenarios: chosen,
    });
    // What this machine allows for a read on PostgreSQL: Fastify reading the same row through `pg`.
    const reads = chosen.filter((s) => s.id === 'rest-get');
    if (reads.length)
      groups.push({
        id: 'postgres-peer',
        title: 'GET by id on PostgreSQL: Switchboard vs Fastify reading the same table through pg',
        servers: [postgres, { ...fastify, name: 'fastify-pg', env: { DATABASE_URL: database.url } }],
        scenarios: reads,
      });
  }
  return groups;
}

function machine(): string {
  const cores = cpus();
  return `${cores[0]?.model.trim() ?? 'unknown CPU'}, ${cores.length} cores, Node ${process.version} (${platform()} ${arch()})`;
}

// Module-wide, so an interruption can drop it too.
let database: BenchDatabase | undefined;

async function main(options: BenchOptions): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  process.stdout.write(`Switchboard over the wire: ${machine()}\n`);
  process.stdout.write(
    `autocannon in the runner process, ${options.connections} connections, pipelining 1` +
      `${options.rate ? `, held to ${options.rate.toLocaleString('en-US')} requests/s` : ''}; per scenario a ` +
      `${options.warmUp} s warm-up per server, then ${options.rounds} interleaved rounds of ${options.duration} s\n\n`,
  );
  const results: GroupResult[] = [];
  try {
    if (options.postgres) database = await openBenchDatabase(options.databaseUrl);
    for (const plan of plans(options, database)) {
      const result = await runGroup(plan, options, log);
      results.push(result);
      process.stdout.write(`${formatGroup(result).join('\n')}\n\n`);
    }
  } finally {
    await stopAll();
    await database?.close();
  }
  if (options.json) {
    const groups = results.map((g) => ({ id: g.id, title: g.title, scenarios: g.scenarios.map(summarize) }));
    const settings = { ...options, databaseUrl: undefined };
    await writeFile(options.json, `${JSON.stringify({ machine: machine(), settings, groups }, null, 2)}\n`);
    process.stdout.write(`Results written to ${options.json}\n`);
  }
}

// Ctrl+C stops the servers (and the throwaway database) instead of leaving them behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stopAll()
      .then(() => database?.close())
      .finally(() => process.exit(130));
  });
}

try {
  await main(parseOptions(process.argv.slice(2), process.env));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`${error.message ? `${error.message}\n` : ''}${USAGE}\n`);
  process.exitCode = error.message ? 64 : 0;
}

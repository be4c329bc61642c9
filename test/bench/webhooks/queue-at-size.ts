/**
 * The PostgreSQL delivery queue at size: a table holding many finished deliveries and a large pending
 * backlog, then claims of 16 (as a dispatcher makes them, each followed by `finishMany` of what it took)
 * timed one after another, with the plans of the claim's statements. Run on demand:
 *
 *   npm run bench:queue                                   # 1,000,000 finished + 100,000 pending, 10 endpoints
 *   npm run bench:queue -- --endpoints 1000 --claims 500
 *   DATABASE_URL=postgres://… npm run bench:queue         # on a throwaway database of that server
 *
 * Seeding a million rows takes a few tens of seconds on a small machine (fsync on).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createPostgresStorage } from '../../../src/storage/postgres/index.js';
import { openBenchDatabase } from '../http/postgres.js';

const { values } = parseArgs({
  options: {
    finished: { type: 'string', default: '1000000' },
    pending: { type: 'string', default: '100000' },
    endpoints: { type: 'string', default: '10' },
    claims: { type: 'string', default: '300' },
  },
});
const finished = Number(values.finished);
const pending = Number(values.pending);
const endpoints = Number(values.endpoints);
const claims = Number(values.claims);
/** The time now in epoch milliseconds, in SQL: the storage port's times are bigint columns. */
const NOW_MS = '(extract(epoch FROM now()) * 1000)::bigint';

const database = await openBenchDatabase(process.env.DATABASE_URL);
const storage = createPostgresStorage({ connectionString: database.url });
const client = new pg.Client({ connectionString: database.url });
try {
  await storage.migrate();
  await client.connect();
  const started = performance.now();
  await seed();
  process.stdout.write(
    `seeded ${finished.toLocaleString('en')} finished + ${pending.toLocaleString('en')} pending deliveries ` +
      `over ${endpoints} endpoints in ${((performance.now() - started) / 1000).toFixed(1)} s\n\n`,
  );
  await explain();
  await timeClaims();
} finally {
  await client.end().catch(() => {});
  await storage.close();
  await database.close();
}

async function seed(): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < endpoints; i++) {
    await storage.webhooks.endpoints.insert({
      id: endpointId(i),
      url: `https://receiver.example/${i}`,
      description: '',
      eventTypes: ['*'],
      secrets: [{ secret: 'whsec_bench', createdAt: now, expiresAt: null }],
      scheme: 'switchboard',
      apiVersion: 1,
      enabled: true,
      disabledReason: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
      version: 1,
    });
  }
  const rows = (status: string, prefix: string, count: number, due: string) =>
    client.query(
      `INSERT INTO switchboard_webhook_deliveries
         (id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at, updated_at)
       SELECT '${prefix}' || lpad(g::text, 9, '0'), 'whe_bench_' || lpad((g % $1)::text, 5, '0'),
         'evt_${prefix}' || g, 'client.created', repeat('x', 400), '${status}', 1, ${due},
         ${NOW_MS} - 86400000 + g, ${NOW_MS} - 86400000 + g
       FROM generate_series(1, $2) g`,
      [endpoints, count],
    );
  await rows('succeeded', 'whd_f', finished, 'NULL');
  await rows('pending', 'whd_p', pending, `${NOW_MS} - 3600000 + g`);
  await client.query('VACUUM ANALYZE switchboard_webhook_deliveries');
}

function endpointId(i: number): string {
  return `whe_bench_${String(i).padStart(5, '0')}`;
}

/** The plans of the claim's two reads, as the store runs them (see src/storage/postgres/webhook-deliveries.ts). */
async function explain(): Promise<void> {
  const claimable = `d.status = 'pending' AND d.next_attempt_at <= ${NOW_MS} AND (d.lease_until IS NULL OR d.lease_until <= ${NOW_MS})`;
  const leased = `leased AS (SELECT endpoint_id, count(*) AS n FROM switchboard_webhook_deliveries
    WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until > ${NOW_MS} GROUP BY endpoint_id)`;
  const pick = `WITH ${leased}
    SELECT e.id FROM switchboard_webhook_endpoints e LEFT JOIN leased l ON l.endpoint_id = e.id
    CROSS JOIN LATERAL (SELECT d.next_attempt_at FROM switchboard_webhook_deliveries d
      WHERE d.endpoint_id = e.id AND ${claimable} ORDER BY d.next_attempt_at, d.id LIMIT 1) first
    WHERE COALESCE(l.n, 0) < 4 ORDER BY first.next_attempt_at, e.id LIMIT 16`;
  const take = `SELECT d.id FROM switchboard_webhook_deliveries d
    WHERE d.endpoint_id = '${endpointId(0)}' AND ${claimable} ORDER BY d.next_attempt_at, d.id LIMIT 4`;
  for (const [name, sql] of [
    ['endpoints to claim from', pick],
    ['deliveries of one endpoint', take],
  ] as const) {
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`);
    process.stdout.write(`plan: ${name}\n${rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}\n\n`);
  }
}

async function timeClaims(): Promise<void> {
  const times: number[] = [];
  let taken = 0;
  for (let i = 0; i < claims; i++) {
    const started = performance.now();
    const claimed = await storage.webhooks.deliveries.claimDue({
      now: Date.now(),
      limit: 16,
      leaseMs: 60_000,
      workerId: 'bench',
      maxPerEndpoint: 4,
    });
    times.push(performance.now() - started);
    taken += claimed.length;
    const at = Date.now();
    await storage.webhooks.deliveries.finishMany(
      claimed.map((d) => ({
        id: d.id,
        lease: { workerId: 'bench', attempts: d.attempts },
        outcome: {
          status: 'succeeded',
          attempts: d.attempts + 1,
          nextAttemptAt: null,
          lastStatusCode: 200,
          lastError: null,
          at,
        },
      })),
    );
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1);
  process.stdout.write(
    `${claims} claims of up to 16 (${taken} deliveries): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms\n`,
  );
}

/**
 * PostgreSQL versus memory, measured in the same run: REST create and read throughput, and webhook
 * deliveries per second with one worker, then three (how the rate grows with worker processes sharing
 * one queue; one process is CPU-bound on signing and HTTP, so the workers are separate processes, as
 * instances are).
 * Run with `npx vitest bench --run test/bench/postgres.bench.ts` (the global setup starts PostgreSQL,
 * or set SWITCHBOARD_TEST_DATABASE_URL). `hz` is operations per second; the summary under each group is
 * the ratio. A delivery round is 120 deliveries to 12 endpoints of a loopback receiver that answers
 * after 20 ms, so deliveries/s = hz × 120. The memory worker runs in this process (its queue cannot be
 * shared), the PostgreSQL workers in their own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, bench, describe } from 'vitest';
import { createRuntime, createSwitchboard, type Storage } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js';
import { createWebhookDispatcher } from '../../src/webhooks/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { EVERY_SCOPE } from '../support/scopes.js';
import { benchRateLimits } from './http/fixture.js';

const db = await createTestDatabase();
const databases: TestDatabase[] = [];
const opened: PostgresStorage[] = [];
const postgres = (): PostgresStorage => {
  const storage = createPostgresStorage({ connectionString: db.url });
  opened.push(storage);
  return storage;
};
await postgres().migrate();

const everything = EVERY_SCOPE;
const trusted = {
  authenticate: async () => ({ kind: 'service' as const, subject: 'bench', scopes: everything }),
  rateLimits: benchRateLimits,
};

function restOn(storage: Storage) {
  const switchboard = createSwitchboard({
    storage,
    oauth: false,
    webhooks: false,
    graphql: false,
    ...trusted,
  });
  let n = 0;
  const tag = Math.random().toString(36).slice(2);
  return {
    async create(): Promise<string> {
      const response = await switchboard.fetch(
        new Request('http://bench/api/v1/clients', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Client ${++n}`, email: `c${n}.${tag}@example.com`, city: 'Paris' }),
        }),
      );
      if (response.status !== 201) throw new Error(`create answered ${response.status}`);
      return ((await response.json()) as { id: string }).id;
    },
    async read(id: string): Promise<void> {
      const response = await switchboard.fetch(new Request(`http://bench/api/v1/clients/${id}`));
      if (response.status !== 200) throw new Error(`read answered ${response.status}`);
      await response.arrayBuffer();
    },
  };
}

const memoryRest = restOn(createMemoryStorage());
const postgresRest = restOn(postgres());
const memoryId = await memoryRest.create();
const postgresId = await postgresRest.create();

describe('REST: POST /api/v1/clients (validated write + event, one transaction)', () => {
  bench('memory', () => memoryRest.create().then(() => {}));
  bench('postgres', () => postgresRest.create().then(() => {}));
});

describe('REST: GET /api/v1/clients/{id}', () => {
  bench('memory', () => memoryRest.read(memoryId));
  bench('postgres', () => postgresRest.read(postgresId));
});

// A receiver with the latency of a real one, so workers overlap their waiting. It counts requests so a
// round knows when every delivery has arrived.
let received = 0;
let waiting: { count: number; resolve: () => void } | undefined;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      res.writeHead(200).end('ok');
      received++;
      if (waiting && received >= waiting.count) waiting.resolve();
    }, 20),
  );
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const arrivals = (count: number): Promise<void> =>
  new Promise((resolve) => {
    waiting = { count: received + count, resolve };
  });

const ENDPOINTS = 12;
const PER_ROUND = 120;

async function withEndpoints(storage: Storage): Promise<Storage> {
  for (let i = 0; i < ENDPOINTS; i++) {
    const at = Date.now();
    await storage.webhooks.endpoints.insert({
      id: `whe_bench_${i}`,
      url: receiverUrl,
      description: '',
      eventTypes: ['*'],
      secrets: [{ secret: 'whsec_benchbenchbenchbenchbench', createdAt: at, expiresAt: null }],
      scheme: 'switchboard',
      apiVersion: 1,
      enabled: true,
      disabledReason: null,
      failingSince: null,
      createdAt: at,
      updatedAt: at,
      version: 1,
    });
  }
  return storage;
}

// Memory: the dispatcher runs in this process, on the in-process queue.
const memoryStorage = await withEndpoints(createMemoryStorage());
const memoryDispatcher = createWebhookDispatcher(createRuntime({ storage: memoryStorage }), {
  outbound: { allowHttp: true, allowPrivateAddresses: true },
  concurrency: 64,
});
let memoryRounds = 0;
async function memoryRound(): Promise<void> {
  const now = Date.now();
  const round = ++memoryRounds;
  for (let n = 0; n < PER_ROUND; n++) {
    await memoryStorage.webhooks.deliveries.createIfAbsent({
      id: `whd_${round}_${n}`,
      endpointId: `whe_bench_${n % ENDPOINTS}`,
      eventId: `evt_${round}_${n}`,
      eventType: 'order.created',
      payload: `{"event":"order.created","event_id":"evt_${round}_${n}"}`,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      leasedBy: null,
      leaseUntil: null,
      lastStatusCode: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    });
  }
  const done = arrivals(PER_ROUND);
  await memoryDispatcher.runOnce();
  await done;
}

// PostgreSQL: worker processes, as instances would run them, on a queue of their own database.
const workers: ChildProcess[] = [];
async function postgresQueue(processes: number): Promise<() => Promise<void>> {
  const queue = await createTestDatabase();
  databases.push(queue);
  const storage = createPostgresStorage({ pool: queue.pool });
  await storage.migrate();
  await withEndpoints(storage);
  await Promise.all(
    Array.from({ length: processes }, async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/postgres-worker.ts'], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { ...process.env, DATABASE_URL: queue.url },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      workers.push(child);
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    }),
  );
  let rounds = 0;
  return async () => {
    const round = ++rounds;
    const done = arrivals(PER_ROUND);
    // One statement, so the queue fills at once and the workers measure themselves, not the producer.
    await queue.pool.query(
      `INSERT INTO switchboard_webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status,
         attempts, next_attempt_at, created_at, updated_at)
       SELECT 'whd_' || $1 || '_' || n, 'whe_bench_' || (n % $2), 'evt_' || $1 || '_' || n, 'order.created',
              '{"event":"order.created"}', 'pending', 0, now(), now(), now()
       FROM generate_series(1, $3) AS n`,
      [round, ENDPOINTS, PER_ROUND],
    );
    await done;
  };
}

const oneWorker = await postgresQueue(1);
const threeWorkers = await postgresQueue(3);

describe(`webhook deliveries: a round of ${PER_ROUND} (deliveries/s = hz × ${PER_ROUND})`, () => {
  bench('memory, 1 worker (in process)', memoryRound);
  bench('postgres, 1 worker process', oneWorker);
  bench('postgres, 3 worker processes', threeWorkers);
});

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGTERM');
  await Promise.all(opened.map((s) => s.close()));
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
  await Promise.all([db, ...databases].map((d) => d.drop()));
});

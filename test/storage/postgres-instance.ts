/**
 * One Switchboard instance on PostgreSQL, as a separate process: what the example server runs with
 * DATABASE_URL. Spawned by postgres-multi-instance.test.ts; prints `listening on <url> worker <id>`.
 *
 * Settings (environment): DATABASE_URL, and short webhook timings so the test runs in seconds.
 */
import { createSwitchboard, jsonLogger, SCOPES, SwitchboardError } from '../../src/index.js';
import { graphqlWebSocketRoute, serve } from '../../src/node/index.js';
import { createPostgresEventBus, createPostgresStorage } from '../../src/storage/postgres/index.js';

const connectionString = process.env.DATABASE_URL!;
const everything = new Set(Object.keys(SCOPES));

// LOG_LEVEL=debug shows what the instance does, on stderr (the test prints it when the instance fails).
const logger = jsonLogger((line) => process.stderr.write(`${line}\n`), {
  level: (process.env.LOG_LEVEL as 'debug' | 'info' | 'warn' | 'error' | undefined) ?? 'warn',
});
const storage = createPostgresStorage({ connectionString, logger });
await storage.migrate();
const bus = createPostgresEventBus({ connectionString, logger });
await bus.ready();

const switchboard = createSwitchboard({
  storage,
  bus,
  logger,
  oauth: false,
  relayIntervalMs: 100,
  // The test speaks for a trusted service; authentication has its own tests.
  authenticate: async (request) => {
    if (request.headers.get('authorization') !== 'Bearer multi-instance-test')
      throw new SwitchboardError('unauthorized', 'Send the test bearer token.');
    return { kind: 'service', subject: 'multi-instance-test', scopes: everything };
  },
  webhooks: {
    outbound: { allowHttp: true, allowPrivateAddresses: true },
    delaysMs: [0, 100, 200, 300, 400, 500, 600, 700],
    timeoutMs: 5_000,
    leaseMs: Number(process.env.LEASE_MS ?? 6_000),
    pollIntervalMs: 100,
  },
});
switchboard.start();

const server = await serve({
  fetch: switchboard.fetch,
  port: 0,
  websockets: switchboard.graphqlWebSocket ? [graphqlWebSocketRoute(switchboard.graphqlWebSocket)] : [],
  onShutdown: async () => {
    await switchboard.close();
    await bus.close();
    await storage.close();
  },
});
process.stdout.write(`listening on ${server.url} worker ${switchboard.webhooks?.dispatcher.workerId}\n`);

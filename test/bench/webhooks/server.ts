/**
 * Switchboard sending webhooks, as a user sets it up: `createSwitchboard` on `serve`, in memory, or on
 * PostgreSQL (storage and LISTEN/NOTIFY bus, as examples/server/main.ts wires them) when DATABASE_URL
 * is set. The only bench additions: plain-http loopback receivers are allowed, dispatcher settings come
 * from BENCH_CONCURRENCY / BENCH_MAX_PER_ENDPOINT when set, and with BENCH_PAUSED=1 background work
 * waits for `POST /__bench/start`, so a burst can be queued first and then timed.
 */
// The built package, as a user runs it (`npm run bench:webhooks` builds it first).
import { createSwitchboard } from 'switchboard-kit';
import { serve } from 'switchboard-kit/node';
import { createPostgresEventBus, createPostgresStorage } from 'switchboard-kit/storage/postgres';
import { announce, BENCH_KEY, benchRateLimits } from '../http/fixture.js';

const url = process.env.DATABASE_URL;
const storage = url ? createPostgresStorage({ connectionString: url }) : undefined;
await storage?.migrate();
const bus = storage ? createPostgresEventBus({ pool: storage.pool }) : undefined;

const concurrency = Number(process.env.BENCH_CONCURRENCY) || undefined;
const maxPerEndpoint = Number(process.env.BENCH_MAX_PER_ENDPOINT) || undefined;

// No logger: the default is silent, so no request or attempt log line is written.
const switchboard = createSwitchboard({
  ...(storage && bus ? { storage, bus } : {}),
  oauth: { adminApiKey: BENCH_KEY },
  rateLimits: benchRateLimits,
  webhooks: {
    outbound: { allowHttp: true, allowPrivateAddresses: true },
    ...(concurrency ? { concurrency } : {}),
    ...(maxPerEndpoint ? { maxPerEndpoint } : {}),
  },
});

const paused = process.env.BENCH_PAUSED === '1';
if (!paused) switchboard.start();

const startRoute = async (request: Request): Promise<Response> => {
  if (request.method !== 'POST' || new URL(request.url).pathname !== '/__bench/start')
    return switchboard.fetch(request);
  switchboard.start();
  return new Response(null, { status: 204 });
};

const server = await serve({
  fetch: paused ? startRoute : switchboard.fetch,
  port: 0,
  onShutdown: async () => {
    // An attempt at the slow receiver would hold the exit for the attempt timeout (15 s); 1 s will do.
    await switchboard.webhooks?.dispatcher.stop({ graceMs: 1_000 });
    await switchboard.close();
    await bus?.close();
    await storage?.close();
    // stdin (held open by announce) would otherwise keep the process alive.
    process.exit(0);
  },
});
announce(server.port);

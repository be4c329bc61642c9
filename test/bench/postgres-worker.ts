/**
 * A webhook worker process for postgres.bench.ts: one dispatcher polling the delivery queue of
 * DATABASE_URL, as each instance of a deployment runs one. Prints `ready` once started.
 */

import { createRuntime } from '../../src/index.js';
import { createPostgresStorage } from '../../src/storage/postgres/index.js';
import { createWebhookDispatcher } from '../../src/webhooks/index.js';

const storage = createPostgresStorage({ connectionString: process.env.DATABASE_URL!, maxConnections: 20 });
const dispatcher = createWebhookDispatcher(createRuntime({ storage }), {
  outbound: { allowHttp: true, allowPrivateAddresses: true },
  pollIntervalMs: 10,
  // Above the most in flight (12 endpoints × 4 per endpoint), so a claim always has free slots.
  concurrency: 64,
});
dispatcher.start();
process.stdout.write('ready\n');
process.on('SIGTERM', async () => {
  await dispatcher.stop();
  await storage.close();
  process.exit(0);
});

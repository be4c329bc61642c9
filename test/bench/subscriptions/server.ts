/**
 * Switchboard serving GraphQL subscriptions as a user sets it up: `createSwitchboard` in memory on
 * `serve`, with the graphql-transport-ws route on `/graphql`. The only bench addition: the line
 * `memory` on stdin is answered with `REPLY <heapUsed> <rss>` (bytes, after a forced GC; start node
 * with `--expose-gc`).
 */
// The built package, as a user runs it (`npm run bench:subscriptions` builds it first).
import { createInterface } from 'node:readline';
import { setImmediate } from 'node:timers/promises';
import { createSwitchboard } from 'switchboard-kit';
import { graphqlWebSocketRoute, serve } from 'switchboard-kit/node';
import { announce, BENCH_KEY } from '../http/fixture.js';

const gc = globalThis.gc;
if (!gc) throw new Error('Start this server with node --expose-gc: it reports memory after a GC.');

// No logger: the default is silent.
const switchboard = createSwitchboard({ oauth: { adminApiKey: BENCH_KEY } });
switchboard.start();

const server = await serve({
  fetch: switchboard.fetch,
  port: 0,
  websockets: [graphqlWebSocketRoute(switchboard.graphqlWebSocket!)],
  onShutdown: async () => {
    await switchboard.close();
    // stdin (held open by announce) would otherwise keep the process alive.
    process.exit(0);
  },
});

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line.trim() !== 'memory') return;
  // Twice, a turn apart: what the first GC frees may let finalizers drop more.
  gc();
  await setImmediate();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  process.stdout.write(`REPLY ${heapUsed} ${rss}\n`);
});
announce(server.port);

/**
 * Switchboard serving GraphQL subscriptions as a user sets it up: `createSwitchboard` in memory on
 * `serve`, with the graphql-transport-ws route on `/graphql`. The only bench addition: the line
 * `memory` on stdin is answered with `REPLY <heapUsed> <rss>` (bytes, after a forced GC; start node
 * with `--expose-gc`).
 */
// The built package, as a user runs it (`npm run bench:subscriptions` builds it first).
import { createSwitchboard } from 'switchboard-kit';
import { graphqlWebSocketRoute, serve } from 'switchboard-kit/node';
import { announce, BENCH_KEY, benchRateLimits } from '../http/fixture.js';
import { answerMemoryRequests } from './memory-report.js';

// No logger: the default is silent.
const switchboard = createSwitchboard({ oauth: { adminApiKey: BENCH_KEY }, rateLimits: benchRateLimits });
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

answerMemoryRequests();
announce(server.port);

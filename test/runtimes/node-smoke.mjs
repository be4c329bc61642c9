// Runs on the Node binary under test (plain JavaScript, no loader): the built package served by
// switchboard-kit/node, called by the shared smoke checks over real HTTP and WebSocket. Prints its
// findings as one JSON line. Started by test/runtimes/node-versions.test.ts.
import { createServer } from 'node:http';
import WebSocket from 'ws';
import { graphqlWebSocketRoute, serve } from '../../dist/node/index.js';
import { smokeChecks } from './smoke-checks.mjs';
import { smokeSwitchboard } from './smoke-switchboard.mjs';

const key = 'sbk_node_versions_smoke_key_0123456789abcdefghij';

const hooks = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
    res.end('ok');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));

const { switchboard, close } = await smokeSwitchboard({ key });
const server = await serve({
  fetch: switchboard.fetch,
  port: 0,
  shutdownSignals: [],
  websockets: [graphqlWebSocketRoute(switchboard.graphqlWebSocket)],
});

const findings = await smokeChecks({
  base: server.url,
  key,
  receiverUrl: `http://127.0.0.1:${receiver.address().port}/hooks`,
  hooks,
  runtime: 'node',
  WebSocket,
  graphqlWebSocket: switchboard.graphqlWebSocket,
});
console.log(JSON.stringify({ node: process.version, ...findings }));
await server.close();
await close();
receiver.close();

// Runs on Bun (not Node): the shared smoke checks (test/runtimes/smoke-checks.mjs, as on Node and Deno)
// on the built package served by Bun.serve with switchboard-kit/bun's server WebSockets, and a webhook
// receiver in this same process. Prints its findings as one JSON line. Started by test/bun/bun.test.ts
// after the package is built. On memory storage, or on PostgreSQL (switchboard-kit/storage/postgres,
// through `pg`) when SMOKE_DATABASE_URL names a database.
import { type BunServer, type BunWebSocketHandler, bunGraphQLWebSocket } from '../../dist/bun/index.js';
import { smokeChecks } from '../runtimes/smoke-checks.mjs';
import { smokeSwitchboard } from '../runtimes/smoke-switchboard.mjs';

declare const Bun: {
  serve(options: {
    port: number;
    hostname: string;
    fetch(request: Request, server: BunServer): Response | Promise<Response> | undefined;
    websocket?: BunWebSocketHandler;
  }): { readonly port: number; stop(closeActiveConnections?: boolean): Promise<void> };
};

const KEY = 'sbk_bun_smoke_admin_key_0123456789abcdefghij';

const hooks: { headers: Headers; body: string }[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    hooks.push({ headers: request.headers, body: await request.text() });
    return new Response(null, { status: 204 });
  },
});

const { switchboard, close } = await smokeSwitchboard({
  key: KEY,
  databaseUrl: process.env.SMOKE_DATABASE_URL,
});
const ws = bunGraphQLWebSocket(switchboard.graphqlWebSocket!);
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  // The peer's address beside the request, for the budgets of callers without credentials.
  fetch: (request, bun) =>
    ws.upgrade(request, bun) ??
    switchboard.fetch(request, { clientAddress: bun.requestIP(request)?.address }),
  websocket: ws.websocket,
});

try {
  const findings = await smokeChecks({
    base: `http://127.0.0.1:${server.port}`,
    key: KEY,
    receiverUrl: `http://127.0.0.1:${receiver.port}/hooks`,
    hooks,
    runtime: 'bun',
    WebSocket,
    graphqlWebSocket: switchboard.graphqlWebSocket,
  });
  console.log(JSON.stringify(findings));
} finally {
  await server.stop(true);
  await receiver.stop(true);
  await close();
}

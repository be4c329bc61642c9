// Runs on Deno (not Node): the shared smoke checks (test/runtimes/smoke-checks.mjs, as on Node) on the
// built package served by Deno.serve with acceptWebSocket for subscriptions. Prints its findings as one
// JSON line. Started by test/deno/deno.test.ts after `npm run build`. On memory storage, or on
// PostgreSQL (switchboard-kit/storage/postgres, through `pg`) when SMOKE_DATABASE_URL names a database.

import { acceptWebSocket } from '../../dist/graphql/index.js';
import { smokeChecks } from '../runtimes/smoke-checks.mjs';
import { smokeSwitchboard } from '../runtimes/smoke-switchboard.mjs';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: () => void },
    handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>,
  ): { readonly addr: { readonly port: number }; shutdown(): Promise<void> };
  env: { get(name: string): string | undefined };
  upgradeWebSocket(
    request: Request,
    options: { protocol: string; idleTimeout: number },
  ): {
    socket: WebSocket;
    response: Response;
  };
};

const KEY = 'sbk_deno_matrix_smoke_key_0123456789abcdefghijk';

const hooks: { headers: Headers; body: string }[] = [];
/** On a free loopback port, without the default "Listening on" line on stdout (the findings go there). */
const onLoopback = { port: 0, hostname: '127.0.0.1', onListen: () => {} };
const receiver = Deno.serve(onLoopback, async (request) => {
  hooks.push({ headers: request.headers, body: await request.text() });
  return new Response('ok');
});

const { switchboard, close } = await smokeSwitchboard({
  key: KEY,
  databaseUrl: Deno.env.get('SMOKE_DATABASE_URL'),
});
// The peer's address beside the request, for the budgets of callers without credentials.
const server = Deno.serve(onLoopback, (request, info) => {
  const clientAddress = info.remoteAddr.hostname;
  return request.headers.get('upgrade') === 'websocket'
    ? acceptWebSocket(
        switchboard.graphqlWebSocket!,
        request,
        (protocol) => Deno.upgradeWebSocket(request, { protocol, idleTimeout: 12 }),
        { clientAddress },
      )
    : switchboard.fetch(request, { clientAddress });
});
const findings = await smokeChecks({
  base: `http://127.0.0.1:${server.addr.port}`,
  key: KEY,
  receiverUrl: `http://127.0.0.1:${receiver.addr.port}/hooks`,
  hooks,
  runtime: 'deno',
  WebSocket,
  graphqlWebSocket: switchboard.graphqlWebSocket,
});
console.log(JSON.stringify(findings));
await close();
await server.shutdown();
await receiver.shutdown();

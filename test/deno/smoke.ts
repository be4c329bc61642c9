// Runs on Deno (not Node): serves the built package's fetch handler with Deno.serve and calls it over
// real HTTP. Started by test/deno/deno.test.ts after `npm run build`.
import { createSwitchboard } from '../../dist/index.js';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): { finished: Promise<void>; shutdown(): Promise<void> };
};

const switchboard = createSwitchboard();
await switchboard.domain.clients.create({ name: 'Deno Client', email: 'deno@example.com' });
let port = 0;
const onListen = (addr: { port: number }): void => {
  port = addr.port;
};
const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen }, switchboard.fetch);
const health = await fetch(`http://127.0.0.1:${port}/healthz`);
const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
const clients = await switchboard.domain.clients.list({ range: { offset: 0, limit: 10 } });
console.log(
  JSON.stringify({
    health: { status: health.status, body: await health.json() },
    ready: ready.status,
    clients: clients.items.map((c) => c.email),
  }),
);
await server.shutdown();
await switchboard.close();

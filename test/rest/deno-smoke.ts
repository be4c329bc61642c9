// Runs on Deno (not Node): serves the REST handler set from source with Deno.serve and calls it over
// real HTTP, proving src/rest needs no Node API. Started by test/rest/deno.test.ts.
import { createDomain, createRuntime, trustEveryone } from '../../src/index.js';
import { createRestHandler } from '../../src/rest/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): { shutdown(): Promise<void> };
};

const storage = createMemoryStorage();
const runtime = createRuntime({ storage });
const rest = createRestHandler(runtime, { domain: createDomain(runtime), authenticate: trustEveryone });
let port = 0;
const onListen = (addr: { port: number }): void => {
  port = addr.port;
};
const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen }, rest);
const base = `http://127.0.0.1:${port}/api/v1`;
const created = await fetch(`${base}/clients`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': 'deno-1' },
  body: JSON.stringify({ name: 'Deno Client', email: 'deno@example.com' }),
});
const list = await fetch(`${base}/clients?limit=1`);
const missing = await fetch(`${base}/clients/none`);
const result = {
  created: { status: created.status, location: created.headers.get('location') },
  list: { status: list.status, link: list.headers.get('link'), total: (await list.json()).total },
  missing: { status: missing.status, type: missing.headers.get('content-type') },
};
await created.body?.cancel();
await missing.body?.cancel();
await server.shutdown();
console.log(JSON.stringify(result));

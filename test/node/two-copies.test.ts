import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRequestListener, type RequestListener } from '../../src/node/index.js';

// A host that both imports and requires switchboard-kit runs two copies of the Node adapter (its ESM
// and CommonJS builds) in one process. The first copy to serve replaces the global Request and
// Response; the second copy is loaded after that, so it must still find undici's own classes.
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
});

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('two copies of the Node adapter in one process', () => {
  it("gives the second copy's handlers a body stream, a signal and a re-targetable request", async () => {
    // The first copy serves, replacing the globals.
    const first = await listen(createRequestListener(async () => new Response('first')));
    expect(await (await fetch(first)).text()).toBe('first');

    // A second copy, every module of it evaluated only now.
    vi.resetModules();
    const second = await import('../../src/node/index.js');
    expect(second.createRequestListener).not.toBe(createRequestListener);

    const base = await listen(
      second.createRequestListener(async (request) => {
        const retargeted = new Request(request, { headers: { 'x-added': 'yes' } });
        // The re-targeted request took the body over, as a stream.
        const streamed = await new Response(retargeted.body).text();
        return Response.json({
          streamed,
          aborted: request.signal.aborted,
          method: retargeted.method,
          url: new URL(retargeted.url).pathname,
          added: retargeted.headers.get('x-added'),
        });
      }),
    );
    const response = await fetch(`${base}/things`, { method: 'POST', body: 'hello' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      streamed: 'hello',
      aborted: false,
      method: 'POST',
      url: '/things',
      added: 'yes',
    });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSwitchboard, type Logger } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';

const servers: NodeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(
  options: Omit<Parameters<typeof serve>[0], 'port' | 'shutdownSignals'>,
): Promise<NodeServer> {
  const server = await serve({ ...options, port: 0, shutdownSignals: [] });
  servers.push(server);
  return server;
}

describe('node adapter', () => {
  it('passes method, path, query, headers and a streamed body to the fetch handler', async () => {
    const server = await start({
      fetch: async (request) => {
        const url = new URL(request.url);
        return Response.json({
          method: request.method,
          path: url.pathname,
          query: url.searchParams.get('q'),
          header: request.headers.get('x-test'),
          body: await request.text(),
        });
      },
    });
    const response = await fetch(`${server.url}/echo?q=1`, {
      method: 'POST',
      headers: { 'x-test': 'yes' },
      body: 'é'.repeat(100_000),
    });
    expect(response.status).toBe(200);
    const echoed = await response.json();
    expect(echoed).toMatchObject({ method: 'POST', path: '/echo', query: '1', header: 'yes' });
    expect(echoed.body).toBe('é'.repeat(100_000));
  });

  it('streams a response body and keeps every Set-Cookie header', async () => {
    const server = await start({
      fetch: async () => {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < 3; i++) controller.enqueue(new TextEncoder().encode(`part${i};`));
            controller.close();
          },
        });
        const headers = new Headers({ 'content-type': 'text/plain' });
        headers.append('set-cookie', 'a=1');
        headers.append('set-cookie', 'b=2');
        return new Response(body, { status: 201, headers });
      },
    });
    const response = await fetch(server.url);
    expect(response.status).toBe(201);
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.text()).toBe('part0;part1;part2;');
  });

  it('answers a generic 500 without internals when the handler throws', async () => {
    const server = await start({
      fetch: async () => {
        throw new Error('secret database password in message');
      },
    });
    const response = await fetch(server.url);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain('secret');
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(JSON.parse(text)).toEqual({
      type: '/problems/internal',
      title: 'Internal server error',
      status: 500,
      detail: 'Something went wrong on our side. Try again later.',
      code: 'internal',
    });
  });

  it('drains in-flight requests on shutdown, refuses new ones, then runs onShutdown', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const steps: string[] = [];
    const server = await serve({
      port: 0,
      shutdownSignals: [],
      fetch: async () => {
        entered();
        await released;
        steps.push('request finished');
        return new Response('done');
      },
      onShutdown: async () => {
        steps.push('onShutdown');
      },
    });
    const slow = fetch(server.url).then((r) => r.text());
    await inside;
    const closed = server.close();
    await expect(fetch(server.url)).rejects.toThrow();
    release();
    expect(await slow).toBe('done');
    await closed;
    expect(steps).toEqual(['request finished', 'onShutdown']);
  });

  it('upgrades WebSockets on a registered path, refuses others, and closes them on shutdown', async () => {
    const server = await start({
      fetch: async () => new Response('http'),
      websockets: [
        {
          path: '/ws',
          onConnection: (socket) => socket.on('message', (data) => socket.send(`echo:${data}`)),
        },
      ],
    });
    const wsUrl = server.url.replace('http', 'ws');
    const socket = new WebSocket(`${wsUrl}/ws`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const reply = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
    socket.send('hi');
    expect(await reply).toBe('echo:hi');

    const refused = await new Promise<number>((resolve) => {
      const other = new WebSocket(`${wsUrl}/nope`);
      other.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      other.once('error', () => resolve(-1));
    });
    expect(refused).toBe(404);

    const closeCode = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await server.close();
    expect(await closeCode).toBe(1001);
  });

  it("answers 400 without upgrading when the client offers none of the route's sub-protocols", async () => {
    const server = await start({
      fetch: async () => new Response('http'),
      websockets: [
        {
          path: '/ws',
          handleProtocols: (protocols) => (protocols.has('echo') ? 'echo' : false),
          onConnection: (socket) => socket.send(socket.protocol),
        },
      ],
    });
    const url = `${server.url.replace('http', 'ws')}/ws`;
    const statusFor = (protocols: string[]) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(url, protocols);
        socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.once('message', (data) => {
          socket.close();
          resolve(String(data) === 'echo' ? 101 : -1);
        });
        socket.once('error', () => resolve(-1));
      });
    expect(await statusFor(['other'])).toBe(400);
    expect(await statusFor([])).toBe(400);
    expect(await statusFor(['other', 'echo'])).toBe(101);
  });

  it('closes a WebSocket that sends a message over the size limit, before buffering it', async () => {
    const received: number[] = [];
    const server = await start({
      fetch: async () => new Response('http'),
      maxWebSocketMessageBytes: 1024,
      websockets: [
        {
          path: '/ws',
          onConnection: (socket) => socket.on('message', (d) => received.push(String(d).length)),
        },
      ],
    });
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send('x'.repeat(1024));
    socket.send('x'.repeat(1025));
    expect(await closed).toBe(1009);
    expect(received).toEqual([1024]);
  });
});

describe('switchboard over HTTP', () => {
  it('serves liveness, readiness and a problem document for unknown paths, logging each request', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger: Logger = { log: (level, msg, fields) => void lines.push({ level, msg, ...fields }) };
    const switchboard = createSwitchboard({ logger });
    const server = await start({ fetch: switchboard.fetch, onShutdown: () => switchboard.close() });

    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const ready = await fetch(`${server.url}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', storage: 'ok' });

    const missing = await fetch(`${server.url}/nothing-here`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/problem+json');
    expect(await missing.json()).toMatchObject({ status: 404, code: 'not_found', title: 'Not found' });

    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.map((l) => [l.method, l.path, l.status])).toEqual([
      ['GET', '/healthz', 200],
      ['GET', '/readyz', 200],
      ['GET', '/nothing-here', 404],
    ]);
    expect(requests.every((l) => typeof l.durationMs === 'number')).toBe(true);
  });

  it('reports not ready when the storage cannot be reached', async () => {
    const switchboard = createSwitchboard();
    const broken = {
      ...switchboard.storage,
      ping: async () => Promise.reject(new Error('connection refused')),
    };
    const server = await start({ fetch: createSwitchboard({ storage: broken }).fetch });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'unavailable', storage: 'unreachable' });
  });
});

/**
 * How attempts travel on Node without a `fetch` option: node:http with keep-alive connections. Checked
 * against a plain node:http receiver, which can see the connections themselves.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, orderEvent } from './support.js';

const page = { offset: 0, limit: 100 };
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver that answers every POST with `body` and counts the connections it was given. */
async function receiver(status: number, body: string) {
  const seen = { connections: 0, requests: 0, bodies: [] as string[] };
  const server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => {
      seen.requests++;
      seen.bodies.push(text);
      response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
  });
  server.on('connection', () => seen.connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, seen };
}

describe('webhook transport on Node', () => {
  it('reuses kept-alive connections across attempts and sends each body intact', async () => {
    const h = harness();
    const target = await receiver(200, 'ok');
    await h.admin.createEndpoint({ url: target.url, eventTypes: ['*'] });
    const events = Array.from({ length: 40 }, () => orderEvent());
    for (const event of events) await h.fanOut(event);
    await h.dispatcher({ concurrency: 4, maxPerEndpoint: 2, adaptiveConcurrency: false }).runOnce();
    expect(target.seen.requests).toBe(40);
    expect(target.seen.connections).toBeLessThanOrEqual(4);
    const sent = target.seen.bodies.map((b) => (JSON.parse(b) as { event_id: string }).event_id);
    expect(sent.sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('keeps the first KB of a long answer and cuts the rest off without failing the attempt', async () => {
    const h = harness();
    const target = await receiver(200, 'x'.repeat(200_000));
    await h.admin.createEndpoint({ url: target.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    await h.dispatcher().runOnce();
    const [delivery] = (await h.storage.webhooks.deliveries.list({}, page)).items;
    expect(delivery).toMatchObject({ status: 'succeeded', lastStatusCode: 200 });
    const [attempt] = await h.storage.webhooks.attempts.listByDelivery(delivery!.id);
    expect(attempt!.responseExcerpt).toBe('x'.repeat(1024));
  });

  it('connects to the address the outbound check resolved, not to a second DNS answer', async () => {
    const h = harness();
    const target = await receiver(200, 'ok');
    const port = new URL(target.url).port;
    const hosts: string[] = [];
    const server = servers.at(-1)!;
    server.on('request', (request) => hosts.push(String(request.headers.host)));
    // The name exists only for the check: DNS would not know it, so only a pinned connection arrives.
    await h.admin.createEndpoint({ url: `http://receiver.pinned.invalid:${port}/hooks`, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const resolveHost = async (host: string) => (host === 'receiver.pinned.invalid' ? ['127.0.0.1'] : []);
    await h.dispatcher({ outbound: { allowHttp: true, allowPrivateAddresses: true, resolveHost } }).runOnce();
    expect(target.seen.requests).toBe(1);
    expect(hosts).toEqual([`receiver.pinned.invalid:${port}`]);
    const [delivery] = (await h.storage.webhooks.deliveries.list({}, page)).items;
    expect(delivery).toMatchObject({ status: 'succeeded', lastStatusCode: 200 });
  });

  it('records a refused connection as a network error and schedules a retry', async () => {
    const h = harness();
    const closed = await receiver(200, 'ok');
    servers.pop()?.close();
    await h.admin.createEndpoint({ url: closed.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    await h.dispatcher({ burstRetries: 1 }).runOnce();
    const [delivery] = (await h.storage.webhooks.deliveries.list({}, page)).items;
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      lastError: 'Network error: ECONNREFUSED.',
    });
  });
});

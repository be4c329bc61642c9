/** How many deliveries of one endpoint the dispatcher sends at once, learnt from the receiver's answers. */
import { describe, expect, it } from 'vitest';
import { harness, listen, orderEvent } from './support.js';

/** A loopback receiver that notes how many requests it holds at each arrival, and the most it held. */
async function countingReceiver(answer: () => Response, delayMs: number) {
  let inFlight = 0;
  const seen = { peak: 0, atArrival: [] as number[] };
  const server = await listen(async (request) => {
    inFlight++;
    seen.peak = Math.max(seen.peak, inFlight);
    seen.atArrival.push(inFlight);
    await request.text();
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    inFlight--;
    return answer();
  });
  return { url: `${server.url}/hooks`, seen };
}

describe('adaptive per-endpoint concurrency', () => {
  it('widens an endpoint that answers 2xx quickly, up to three quarters of the worker’s slots', async () => {
    const h = harness();
    const receiver = await countingReceiver(() => new Response(null, { status: 204 }), 5);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    for (let i = 0; i < 150; i++) await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ maxPerEndpoint: 2, concurrency: 8 });
    expect(await dispatcher.runOnce()).toBe(150);
    expect(receiver.seen.peak).toBeGreaterThan(2);
    expect(receiver.seen.peak).toBeLessThanOrEqual(6);
  });

  it('keeps the configured limit when adaptiveConcurrency is off', async () => {
    const h = harness();
    const receiver = await countingReceiver(() => new Response(null, { status: 204 }), 5);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    for (let i = 0; i < 60; i++) await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ maxPerEndpoint: 2, concurrency: 8, adaptiveConcurrency: false });
    await dispatcher.runOnce();
    expect(receiver.seen.peak).toBe(2);
  });

  it('sends one at a time to an endpoint that asks to slow down with 429 and Retry-After', async () => {
    const h = harness();
    const receiver = await countingReceiver(
      () => new Response('slow down', { status: 429, headers: { 'retry-after': '0' } }),
      50,
    );
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    for (let i = 0; i < 12; i++) await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ maxPerEndpoint: 4, concurrency: 8 });
    await dispatcher.runOnce();
    // The first claim sends four side by side; once they are answered, one at a time.
    expect(receiver.seen.atArrival.slice(0, 4)).toEqual([1, 2, 3, 4]);
    expect(receiver.seen.atArrival.length).toBeGreaterThan(4);
    expect(receiver.seen.atArrival.slice(4).every((n) => n === 1)).toBe(true);
  });

  it('halves the limit of an endpoint that answers 503', async () => {
    const h = harness();
    const receiver = await countingReceiver(() => new Response('down', { status: 503 }), 50);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    for (let i = 0; i < 12; i++) await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ maxPerEndpoint: 4, concurrency: 8 });
    await dispatcher.runOnce();
    expect(receiver.seen.peak).toBe(4);
    expect(Math.max(...receiver.seen.atArrival.slice(4))).toBeLessThanOrEqual(2);
  });
});

import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createWebhookReceiver, verifyWebhook } from '../../src/webhooks/index.js';
import { harness, listen, orderEvent, scriptedReceiver } from './support.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe('webhook delivery to a real receiver on loopback', () => {
  it('delivers a signed event that the receiver verifies and processes', async () => {
    const h = harness();
    const processed: unknown[] = [];
    const secretBox: { secret?: string } = {};
    const receive = createWebhookReceiver({
      get secrets() {
        return [secretBox.secret!];
      },
      idempotency: createMemoryStorage().idempotency,
      clock: h.clock,
      onEvent: (event) => {
        processed.push(event);
      },
    });
    const server = await listen(receive);
    const { endpoint, secret } = await h.admin.createEndpoint({
      url: `${server.url}/hooks`,
      eventTypes: ['order.*'],
    });
    secretBox.secret = secret;
    const event = orderEvent();
    await h.fanOut(event);
    expect(await h.dispatcher().runOnce()).toBe(1);

    expect(processed).toEqual([
      {
        id: event.id,
        type: 'order.shipped',
        payload: {
          event: 'order.shipped',
          event_id: event.id,
          created_at: event.occurredAt,
          data: event.data,
        },
      },
    ]);
    const [delivery] = (await h.admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 10 }))
      .items;
    expect(delivery).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });
    const [attempt] = await h.admin.listAttempts(delivery!.id);
    expect(attempt).toMatchObject({ number: 1, statusCode: 200, succeeded: true, error: null });
    expect(attempt!.responseExcerpt).toContain('processed');
    expect(attempt!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('sends the same event_id and body on every retry, with a fresh timestamp and signature', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [
      () => new Response('no', { status: 503 }),
      () => new Response('ok'),
    ]);
    const { secret } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher();
    await dispatcher.runOnce();
    h.clock.advance(5 * SECOND);
    await dispatcher.runOnce();
    const [first, second] = receiver.received;
    expect(second!.body).toBe(first!.body);
    expect(second!.headers.get('x-event-id')).toBe(first!.headers.get('x-event-id'));
    expect(Number(second!.headers.get('x-timestamp'))).toBe(Number(first!.headers.get('x-timestamp')) + 5);
    expect(second!.headers.get('x-signature')).not.toBe(first!.headers.get('x-signature'));
    for (const r of receiver.received) {
      expect(
        (
          await verifyWebhook({
            body: r.body,
            headers: r.headers,
            secrets: [secret],
            clock: { now: () => r.at },
          })
        ).ok,
      ).toBe(true);
    }
  });

  it('retries a receiver that answers 500 three times and delivers on the fourth attempt, on schedule', async () => {
    const h = harness();
    const fail = () => new Response('boom', { status: 500 });
    const receiver = await scriptedReceiver(h.clock, [fail, fail, fail, () => new Response('ok')]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['order.shipped'] });
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher();
    const start = h.clock.now();

    await dispatcher.runOnce();
    // Not due before its time: nothing is sent while the clock stands still.
    h.clock.advance(5 * SECOND - 1);
    expect(await dispatcher.runOnce()).toBe(0);
    h.clock.advance(1);
    await dispatcher.runOnce();
    h.clock.advance(5 * MINUTE);
    await dispatcher.runOnce();
    h.clock.advance(30 * MINUTE);
    await dispatcher.runOnce();

    expect(receiver.received.map((r) => r.at - start)).toEqual([
      0,
      5 * SECOND,
      5 * SECOND + 5 * MINUTE,
      5 * SECOND + 35 * MINUTE,
    ]);
    const [delivery] = (await h.admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 1 }))
      .items;
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 4 });
    const attempts = await h.admin.listAttempts(delivery!.id);
    expect(attempts.map((a) => [a.number, a.statusCode, a.succeeded])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 500, false],
      [4, 200, true],
    ]);
    expect(attempts[0]!.responseExcerpt).toBe('boom');
  });

  it('spreads retries with ±20% jitter', async () => {
    for (const [random, factor] of [
      [0, 0.8],
      [0.999_999, 1.2],
    ] as const) {
      const h = harness();
      const receiver = await scriptedReceiver(h.clock, [() => new Response('', { status: 502 })]);
      await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
      await h.fanOut(orderEvent());
      const dispatcher = h.dispatcher({ random: () => random });
      await dispatcher.runOnce();
      const due = Math.round(5 * MINUTE * factor);
      h.clock.advance(5 * SECOND * factor);
      await dispatcher.runOnce();
      h.clock.advance(due - 1);
      await dispatcher.runOnce();
      expect(receiver.received).toHaveLength(2);
      h.clock.advance(1);
      await dispatcher.runOnce();
      expect(receiver.received).toHaveLength(3);
    }
  });

  it('times out a receiver that never answers, records it, and retries', async () => {
    const h = harness();
    let calls = 0;
    const server = await listen(async () => {
      calls++;
      if (calls === 1) await new Promise(() => {});
      return new Response('ok');
    });
    const { endpoint } = await h.admin.createEndpoint({ url: `${server.url}/slow`, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ timeoutMs: 300 });
    await dispatcher.runOnce();
    const [delivery] = (await h.admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 1 }))
      .items;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: null });
    expect((await h.admin.listAttempts(delivery!.id))[0]).toMatchObject({
      error: 'No answer within 300 ms.',
      statusCode: null,
    });
    h.clock.advance(5 * SECOND);
    await dispatcher.runOnce();
    expect(await h.admin.getDelivery(delivery!.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('honours Retry-After within bounds', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [
      () => new Response('', { status: 429, headers: { 'retry-after': '120' } }),
      () => new Response('', { status: 503, headers: { 'retry-after': '999999' } }),
      () => new Response('ok'),
    ]);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ maxRetryAfterMs: 10 * MINUTE });
    const start = h.clock.now();
    await dispatcher.runOnce();
    h.clock.advance(119 * SECOND);
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(1);
    h.clock.advance(SECOND);
    await dispatcher.runOnce();
    h.clock.advance(10 * MINUTE);
    await dispatcher.runOnce();
    expect(receiver.received.map((r) => r.at - start)).toEqual([0, 2 * MINUTE, 12 * MINUTE]);
  });
});

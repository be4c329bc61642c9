import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage, Stores } from '../../src/core/storage/index.js';
import { createTelemetry } from '../../src/core/telemetry/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { manualTimers, settled } from '../support/timers.js';
import { harness, listen, orderEvent, scriptedReceiver } from './support.js';

const page = { offset: 0, limit: 100 };
const HOUR = 3_600_000;

describe('webhook dispatcher', () => {
  it('lets two workers on one store deliver each event exactly once', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    const events = Array.from({ length: 40 }, () => orderEvent());
    for (const event of events) await h.fanOut(event);
    const [a, b] = [
      h.dispatcher({ workerId: 'a', concurrency: 4 }),
      h.dispatcher({ workerId: 'b', concurrency: 4 }),
    ];
    const [sentByA, sentByB] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(sentByA + sentByB).toBe(40);
    const ids = receiver.received.map((r) => r.headers.get('x-event-id'));
    expect(ids.sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('creates one delivery per matching enabled endpoint, and none twice when the fan-out repeats', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock);
    const orders = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['order.*'] });
    const shipped = await h.admin.createEndpoint({
      url: receiver.url,
      eventTypes: ['order.shipped', 'client.created'],
    });
    const clients = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['client.*'] });
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'], enabled: false });
    const event = orderEvent();
    await h.fanOut(event);
    await h.fanOut(event); // the relay hands an event out again after a crash
    const all = await h.storage.webhooks.deliveries.list({}, page);
    expect(all.items.map((d) => d.endpointId).sort()).toEqual(
      [orders.endpoint.id, shipped.endpoint.id].sort(),
    );
    expect((await h.admin.listDeliveries({ endpointId: clients.endpoint.id }, page)).total).toBe(0);
  });

  it('gives up at once on a 4xx other than 408 and 429', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [() => new Response('bad', { status: 400 })]);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher();
    await dispatcher.runOnce();
    h.clock.advance(48 * HOUR);
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(1);
    expect((await h.admin.listDeliveries({ status: 'dead' }, page)).items[0]).toMatchObject({
      attempts: 1,
      lastStatusCode: 400,
    });
  });

  it('dead-letters a delivery after the last attempt, and a re-send starts a fresh schedule', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [
      () => new Response('', { status: 500 }),
      () => new Response('', { status: 500 }),
      () => new Response('', { status: 500 }),
      () => new Response('ok'),
    ]);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ attempts: 3 });
    for (let i = 0; i < 5; i++) {
      await dispatcher.runOnce();
      h.clock.advance(HOUR);
    }
    expect(receiver.received).toHaveLength(3);
    const [dead] = (await h.admin.listDeliveries({ status: 'dead' }, page)).items;
    expect(dead).toMatchObject({ attempts: 3, lastStatusCode: 500, nextAttemptAt: null });

    await expect(h.admin.resendDelivery(dead!.id)).resolves.toMatchObject({ status: 'pending', attempts: 0 });
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(4);
    expect(await h.admin.getDelivery(dead!.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    // The schedule starts again (attempts 1), the log counts on: the re-sent attempt is #4.
    expect((await h.admin.listAttempts(dead!.id)).map((a) => a.number)).toEqual([1, 2, 3, 4]);
  });

  it('re-sends every dead delivery of a time range', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [() => new Response('', { status: 404 })]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    const from = new Date(h.clock.now()).toISOString();
    for (let i = 0; i < 3; i++) await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher();
    await dispatcher.runOnce();
    h.clock.advance(HOUR);
    await h.fanOut(orderEvent()); // outside the range
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(4);
    const to = new Date(Date.parse(from) + 1000).toISOString();
    await expect(h.admin.resendDeliveries({ endpointId: endpoint.id, from, to })).resolves.toEqual({
      requeued: 3,
    });
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(7);
  });

  it('disables the endpoint on 410 Gone and announces it with an event', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [() => new Response('', { status: 410 })]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    await h.fanOut(orderEvent());
    await h.dispatcher({ concurrency: 1 }).runOnce();
    expect(receiver.received).toHaveLength(1);
    expect(await h.admin.getEndpoint(endpoint.id)).toMatchObject({ enabled: false, disabledReason: 'gone' });
    const dead = await h.admin.listDeliveries({ endpointId: endpoint.id, status: 'dead' }, page);
    expect(dead.items.map((d) => d.lastError).sort()).toEqual(['HTTP 410', 'The endpoint is disabled.']);
    const events = await h.storage.outbox.claim({ now: h.clock.now(), limit: 10, leaseMs: 1000 });
    expect(events).toMatchObject([
      { type: 'webhook_endpoint.disabled', data: { id: endpoint.id, reason: 'gone' } },
    ]);
  });

  it('disables an endpoint that has failed without a success for too long', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [() => new Response('', { status: 503 })]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    const dispatcher = h.dispatcher({ disableAfterMs: 24 * HOUR });
    for (let i = 0; i < 4; i++) {
      await h.fanOut(orderEvent());
      await dispatcher.runOnce();
      h.clock.advance(10 * HOUR);
    }
    expect(await h.admin.getEndpoint(endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
    const events = await h.storage.outbox.claim({ now: h.clock.now(), limit: 10, leaseMs: 1000 });
    expect(events.map((e) => e.type)).toEqual(['webhook_endpoint.disabled']);
    // Enabling it again clears the failure record.
    await expect(h.admin.updateEndpoint(endpoint.id, { enabled: true })).resolves.toMatchObject({
      enabled: true,
      disabledReason: null,
      failingSince: null,
    });
  });

  it('does not follow redirects', async () => {
    const h = harness();
    const target = await scriptedReceiver(h.clock);
    const receiver = await scriptedReceiver(h.clock, [
      () => new Response(null, { status: 307, headers: { location: target.url } }),
    ]);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    await h.dispatcher().runOnce();
    expect(target.received).toHaveLength(0);
    const [delivery] = (await h.storage.webhooks.deliveries.list({}, page)).items;
    expect(delivery).toMatchObject({
      status: 'pending',
      lastStatusCode: 307,
      lastError: expect.stringContaining('Redirect not followed'),
    });
  });

  it('refuses loopback, private and metadata addresses at send time unless allowed', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    await h.dispatcher({ outbound: { allowHttp: true } }).runOnce();
    expect(receiver.received).toHaveLength(0);
    const [attempt] = await h.storage.webhooks.attempts.listByDelivery(
      (await h.admin.listDeliveries({ endpointId: endpoint.id }, page)).items[0]!.id,
    );
    expect(attempt!.error).toMatch(/private or reserved/);
  });

  it('checks where a host name resolves at send time, not only at registration', async () => {
    const h = harness();
    const resolved: string[] = [];
    const dispatcher = h.dispatcher({
      outbound: {
        resolveHost: async (host) => {
          resolved.push(host);
          return ['169.254.169.254'];
        },
      },
      fetch: async () => new Response('should not be called'),
    });
    const { endpoint } = await h.admin.createEndpoint({
      url: 'https://hooks.example.com/x',
      eventTypes: ['*'],
    });
    await h.storage.webhooks.endpoints.insert({
      ...(await h.storage.webhooks.endpoints.get(endpoint.id))!,
      id: 'whe_rebound',
      secrets: [{ secret: 'whsec_dGVzdA==', createdAt: 0, expiresAt: null }],
    });
    await h.fanOut(orderEvent());
    await dispatcher.runOnce();
    expect(resolved).toContain('hooks.example.com');
    const dead = await h.admin.listDeliveries({ status: 'dead' }, page);
    expect(dead.items.every((d) => /169\.254\.169\.254/.test(d.lastError ?? ''))).toBe(true);
    expect(dead.total).toBe(2);
  });

  it('keeps a slow endpoint to its concurrency limit while others are served', async () => {
    const h = harness();
    let active = 0;
    let peak = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = await listen(async () => {
      active++;
      peak = Math.max(peak, active);
      await gate;
      active--;
      return new Response('ok');
    });
    const fast = await scriptedReceiver(h.clock);
    await h.admin.createEndpoint({ url: `${slow.url}/slow`, eventTypes: ['order.*'] });
    await h.admin.createEndpoint({ url: fast.url, eventTypes: ['client.*'] });
    for (let i = 0; i < 6; i++) await h.fanOut(orderEvent());
    for (let i = 0; i < 3; i++) await h.fanOut(orderEvent({ type: 'client.created' }));
    const dispatcher = h.dispatcher({ maxPerEndpoint: 2, concurrency: 8 });
    const run = dispatcher.runOnce();
    await expect.poll(() => fast.received.length).toBe(3);
    expect(peak).toBe(2);
    release();
    await run;
    expect(peak).toBe(2);
  });

  it('keeps claiming in the background when every slot is busy at the moment it looks', async () => {
    const h = harness();
    let received = 0;
    // Each answer takes longer than a poll interval, so polls often find every slot busy.
    const receiver = await listen(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      received++;
      return new Response('ok');
    });
    await h.admin.createEndpoint({ url: `${receiver.url}/slow`, eventTypes: ['*'] });
    for (let i = 0; i < 30; i++) await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ concurrency: 2, maxPerEndpoint: 2, pollIntervalMs: 5 });
    dispatcher.start();
    try {
      await expect.poll(() => received, { timeout: 15_000 }).toBe(30);
    } finally {
      await dispatcher.stop();
    }
    expect((await h.admin.listDeliveries({ status: 'succeeded' }, page)).total).toBe(30);
  });

  it('releases in-flight claims when stopped, so another worker sends them at once', async () => {
    const h = harness();
    let calls = 0;
    const server = await listen(async () => {
      calls++;
      if (calls === 1) await new Promise(() => {});
      return new Response('ok');
    });
    await h.admin.createEndpoint({ url: `${server.url}/hang`, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const first = h.dispatcher({ workerId: 'first', timeoutMs: 60_000 });
    first.start();
    await expect.poll(() => calls).toBe(1);
    await first.stop({ graceMs: 50 });
    const [delivery] = (await h.storage.webhooks.deliveries.list({}, page)).items;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 0, leasedBy: null });
    await h.dispatcher({ workerId: 'second' }).runOnce();
    expect(await h.admin.getDelivery(delivery!.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('retries a reset connection within the same attempt (a short in-process burst)', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    let resets = 0;
    const flaky: typeof fetch = async (input, init) => {
      if (resets++ === 0)
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
        });
      return fetch(input, init);
    };
    await h.dispatcher({ fetch: flaky }).runOnce();
    expect(receiver.received).toHaveLength(1);
    const [delivery] = (await h.storage.webhooks.deliveries.list({}, page)).items;
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('sends nothing in the background until started, and nothing after stopping', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    const dispatcher = h.dispatcher({ pollIntervalMs: 10 });
    await h.fanOut(orderEvent());
    dispatcher.kick();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.received).toHaveLength(0);
    dispatcher.start();
    await expect.poll(() => receiver.received.length).toBe(1);
    await dispatcher.stop();
    await h.fanOut(orderEvent());
    expect(await dispatcher.runOnce()).toBe(0);
  });

  it('retries when the receiver name cannot be resolved for now', async () => {
    const h = harness();
    let lookups = 0;
    const receiver = await scriptedReceiver(h.clock);
    const dispatcher = h.dispatcher({
      outbound: {
        allowHttp: true,
        resolveHost: async () => {
          if (++lookups === 1) throw new Error('getaddrinfo EAI_AGAIN');
          return ['93.184.216.34'];
        },
      },
      fetch: async () => fetch(receiver.url, { method: 'POST' }),
    });
    const { endpoint } = await h.admin.createEndpoint({
      url: 'http://hooks.example.com/in',
      eventTypes: ['*'],
    });
    await h.fanOut(orderEvent());
    await dispatcher.runOnce();
    const [delivery] = (await h.admin.listDeliveries({ endpointId: endpoint.id }, page)).items;
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: expect.stringContaining('EAI_AGAIN'),
    });
    h.clock.advance(5_000);
    await dispatcher.runOnce();
    expect(await h.admin.getDelivery(delivery!.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
  });
});

describe('webhook dispatcher in the background', () => {
  it('backs off while the storage refuses to claim, doubling the wait, and works again once it answers', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const { deliveries } = h.storage.webhooks;
    let claims = 0;
    let refusals = 3;
    const storage: Storage = {
      ...h.storage,
      webhooks: {
        ...h.storage.webhooks,
        deliveries: {
          ...deliveries,
          claimDue: async (options) => {
            claims++;
            if (refusals-- > 0) throw new Error('the database is restarting');
            return deliveries.claimDue(options);
          },
        },
      },
    };
    const timers = manualTimers();
    const dispatcher = h.dispatcher({ storage, timers, pollIntervalMs: 1_000 });
    dispatcher.start();
    await settled();
    expect(claims).toBe(1);
    await timers.advance(999);
    expect(claims).toBe(1);
    await timers.advance(1);
    expect(claims).toBe(2);
    // Twice as long now, and a kick does not cut the wait short.
    dispatcher.kick();
    await timers.advance(1_999);
    expect(claims).toBe(2);
    await timers.advance(1);
    expect(claims).toBe(3);
    await timers.advance(4_000);
    expect(claims).toBe(4);
    await expect.poll(() => receiver.received.length).toBe(1);
    await expect
      .poll(async () => (await h.admin.listDeliveries({ status: 'succeeded' }, page)).total)
      .toBe(1);
    // Answering again, it looks every poll interval.
    const before = claims;
    await timers.advance(1_000);
    expect(claims).toBeGreaterThan(before);
    await dispatcher.stop();
  });

  it('looks for work a moment after a kick, and waits its poll interval when it found none', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    const timers = manualTimers();
    const dispatcher = h.dispatcher({ timers, pollIntervalMs: 60_000 });
    dispatcher.start();
    await settled();
    await h.fanOut(orderEvent());
    await timers.advance(59_999);
    expect(receiver.received).toHaveLength(0);
    dispatcher.kick();
    await timers.advance(0);
    await expect.poll(() => receiver.received.length).toBe(1);
    await dispatcher.stop();
  });
});

describe('webhook dispatcher stopping', () => {
  it('claims nothing more once stopping, not even for a runOnce under way', async () => {
    const h = harness();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let calls = 0;
    const server = await listen(async () => {
      if (++calls === 1) await gate;
      return new Response('ok');
    });
    await h.admin.createEndpoint({ url: `${server.url}/slow`, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ concurrency: 1 });
    const run = dispatcher.runOnce();
    await expect.poll(() => calls).toBe(1);
    const stopped = dispatcher.stop({ graceMs: 10_000 });
    open();
    await stopped;
    expect(await run).toBe(1);
    expect(calls).toBe(1);
    const pending = await h.storage.webhooks.deliveries.list({ status: 'pending' }, page);
    expect(pending.items).toMatchObject([{ attempts: 0, leasedBy: null }]);
  });
});

describe('webhook_endpoint.disabled', () => {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    context.disable();
  });

  it('is made like every event: id and time from the injected ids and clock, in the trace of the attempt that disabled it', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [() => new Response('', { status: 410 })]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    h.clock.advance(90_000);
    await h.dispatcher({ telemetry: createTelemetry({ tracerProvider }) }).runOnce();
    const [event] = await h.storage.outbox.claim({ now: h.clock.now(), limit: 10, leaseMs: 1000 });
    const attempt = exporter.getFinishedSpans().find((s) => s.name === 'switchboard.webhook.attempt')!;
    const { traceId, spanId } = attempt.spanContext();
    expect(event).toMatchObject({
      id: expect.stringMatching(/^evt_\d+$/),
      type: 'webhook_endpoint.disabled',
      occurredAt: new Date(h.clock.now()).toISOString(),
      data: { id: endpoint.id, reason: 'gone' },
      traceparent: `00-${traceId}-${spanId}-01`,
    });
  });
});

describe('webhook dispatcher outcomes', () => {
  it('writes the outcomes that arrive while a write is under way in the next one together', async () => {
    const real = createMemoryStorage();
    let transactions = 0;
    let writes = 0;
    const slowly = async <T>(write: () => Promise<T>): Promise<T> => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return write();
    };
    // A store whose commits take a while, as a database's do.
    const storage: Storage = {
      ...real,
      webhooks: {
        ...real.webhooks,
        deliveries: {
          ...real.webhooks.deliveries,
          finishSucceeded: (finishes, attempts) => {
            writes++;
            return slowly(() => real.webhooks.deliveries.finishSucceeded(finishes, attempts));
          },
        },
      },
      transaction: (work) => {
        transactions++;
        return slowly(() => real.transaction(work));
      },
    };
    const h = harness(storage);
    // The first 20 answers fail, the rest succeed.
    const failing = Array.from({ length: 20 }, () => () => new Response('busy', { status: 500 }));
    const receiver = await scriptedReceiver(h.clock, [...failing, () => new Response('ok')]);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    for (let i = 0; i < 40; i++) await h.fanOut(orderEvent());
    transactions = 0;
    await h.dispatcher({ concurrency: 40, maxPerEndpoint: 40 }).runOnce();
    expect((await real.webhooks.deliveries.list({ status: 'succeeded' }, page)).total).toBe(20);
    // Batches with a failure take a transaction (a failure may disable the endpoint); the others one write.
    expect(transactions).toBeGreaterThan(0);
    expect(transactions + writes).toBeLessThan(20);
  });

  it('records outcomes together, and one that cannot be written does not take the others down', async () => {
    const real = createMemoryStorage();
    let poisoned: string | undefined;
    // The store refuses to write one delivery's outcome, as a failing database row would.
    const withPoison = (stores: Stores): Stores => ({
      ...stores,
      webhooks: {
        ...stores.webhooks,
        deliveries: {
          ...stores.webhooks.deliveries,
          finishMany: (finishes) =>
            finishes.some((f) => f.id === poisoned)
              ? Promise.reject(new Error('row is broken'))
              : stores.webhooks.deliveries.finishMany(finishes),
          finishSucceeded: (finishes, attempts) =>
            finishes.some((f) => f.id === poisoned)
              ? Promise.reject(new Error('row is broken'))
              : stores.webhooks.deliveries.finishSucceeded(finishes, attempts),
        },
      },
    });
    const storage: Storage = {
      ...real,
      ...withPoison(real),
      transaction: (work) => real.transaction((tx) => work(withPoison(tx))),
    };
    const h = harness(storage);
    const receiver = await scriptedReceiver(h.clock);
    await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    for (let i = 0; i < 12; i++) await h.fanOut(orderEvent());
    poisoned = (await real.webhooks.deliveries.list({}, page)).items[5]!.id;
    await h.dispatcher({ concurrency: 12, maxPerEndpoint: 12 }).runOnce();
    expect(receiver.received).toHaveLength(12);
    const after = (await real.webhooks.deliveries.list({}, page)).items;
    expect(after.filter((d) => d.status === 'succeeded')).toHaveLength(11);
    // Its lease stays until it expires; then it is sent again (at least once).
    expect(after.find((d) => d.id === poisoned)).toMatchObject({ status: 'pending', attempts: 0 });
  });
});

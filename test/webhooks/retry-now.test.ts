import { afterEach, describe, expect, it } from 'vitest';
import type { Switchboard } from '../../src/index.js';
import { harness, listen, orderEvent, scriptedReceiver, webhookApi } from './support.js';

const HOUR = 3_600_000;
const started: Switchboard[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

describe('retry now', () => {
  it('makes a delivery waiting after a 500 due now, its schedule kept, and numbers its attempts #1, #2', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [
      () => new Response('down', { status: 500, headers: { 'x-receiver': 'a' } }),
      () => new Response('ok'),
    ]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher();
    await dispatcher.runOnce();
    const [waiting] = (await h.admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 1 }))
      .items;
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500 });
    expect(Date.parse(waiting!.nextAttemptAt!)).toBeGreaterThan(h.clock.now());

    const due = await h.admin.retryDelivery(waiting!.id);
    expect(due).toMatchObject({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: new Date(h.clock.now()).toISOString(),
    });
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    const attempts = await h.admin.listAttempts(waiting!.id);
    expect(attempts.map((a) => [a.number, a.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(attempts[0]!.responseHeaders).toMatchObject({ 'x-receiver': 'a' });
    await expect(h.admin.retryDelivery('whd_nobody')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('sends a dead or succeeded delivery again at once, its new attempt numbered after the old ones', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [() => new Response('', { status: 400 })]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher();
    await dispatcher.runOnce();
    const [dead] = (await h.admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 1 })).items;
    expect(dead!.status).toBe('dead');
    await h.admin.retryDelivery(dead!.id);
    await dispatcher.runOnce();
    expect((await h.admin.listAttempts(dead!.id)).map((a) => a.number)).toEqual([1, 2]);
  });

  it('replays since a time the dead deliveries and those waiting after a failure, and counts 0 as 0', async () => {
    const h = harness();
    const receiver = await scriptedReceiver(h.clock, [
      () => new Response('', { status: 400 }), // dead at once
      () => new Response('', { status: 503 }), // waits for a retry
      () => new Response('ok'),
    ]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    const from = new Date(h.clock.now()).toISOString();
    await h.fanOut(orderEvent());
    await h.fanOut(orderEvent());
    await h.fanOut(orderEvent());
    const dispatcher = h.dispatcher({ concurrency: 1 });
    for (let i = 0; i < 3; i++) await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(3);
    const range = { endpointId: endpoint.id, from };
    // `dead`, the default, takes the dead one alone; `failed` the one waiting for its retry too.
    await expect(h.admin.resendDeliveries({ ...range, status: 'failed' })).resolves.toEqual({ requeued: 2 });
    await dispatcher.runOnce();
    await dispatcher.runOnce();
    expect(receiver.received).toHaveLength(5);

    h.clock.advance(HOUR);
    const later = new Date(h.clock.now()).toISOString();
    await expect(
      h.admin.resendDeliveries({ endpointId: endpoint.id, from: later, status: 'failed' }),
    ).resolves.toEqual({ requeued: 0 });
  });

  it('over REST: the receiver gets the attempt within moments, not at the next scheduled retry', async () => {
    let calls = 0;
    const got: string[] = [];
    const receiver = await listen(async (request) => {
      got.push(await request.text());
      return new Response(calls++ === 0 ? 'down' : 'ok', { status: calls === 1 ? 500 : 200 });
    });
    // Polled once a minute: only Retry now's wake-up can deliver within the test's seconds.
    const { switchboard, api, register } = await webhookApi(started, 60_000);
    const endpoint = await register(`${receiver.url}/hooks`, ['webhook.test']);
    switchboard.start();
    const sent = await api(`/webhook-endpoints/${endpoint.id}/test-events`, { method: 'POST' });
    const delivery = (await sent.json()) as { id: string };
    await expect.poll(() => got.length, { timeout: 5_000 }).toBe(1);
    const path = `/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}`;
    await expect
      .poll(async () => ((await (await api(path)).json()) as { attempts: number }).attempts, {
        timeout: 5_000,
      })
      .toBe(1);

    const startedAt = Date.now();
    const retried = await api(`${path}/retries`, { method: 'POST' });
    expect(retried.status).toBe(202);
    await expect.poll(() => got.length, { timeout: 3_000 }).toBe(2);
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(got[1]).toBe(got[0]);
    // The delivery log finds an event's delivery by the event's id.
    const eventId = JSON.parse(got[0]!).event_id as string;
    const found = await (
      await api(`/webhook-endpoints/${endpoint.id}/deliveries?event_id=${eventId}`)
    ).json();
    expect(found).toMatchObject({ total: 1, items: [{ id: delivery.id, eventId }] });
    // A test event of a kind outside the catalogue is refused, naming the field.
    const unknown = await api(`/webhook-endpoints/${endpoint.id}/test-events?event_type=order.nope`, {
      method: 'POST',
    });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({
      errors: [{ field: 'eventType', code: 'invalid_value' }],
    });
    const absent = await api(`/webhook-endpoints/${endpoint.id}/deliveries/whd_nobody/retries`, {
      method: 'POST',
    });
    expect(absent.status).toBe(404);
  });
});

describe('response headers of an attempt', () => {
  it('keeps at most 30 of them within 4 KiB, names lower-case', async () => {
    const h = harness();
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`X-Note-${i}`, 'v'.repeat(200)]));
    const receiver = await scriptedReceiver(h.clock, [() => new Response('ok', { headers: many })]);
    const { endpoint } = await h.admin.createEndpoint({ url: receiver.url, eventTypes: ['*'] });
    await h.fanOut(orderEvent());
    await h.dispatcher().runOnce();
    const [delivery] = (await h.admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 1 }))
      .items;
    const [attempt] = await h.admin.listAttempts(delivery!.id);
    const kept = Object.entries(attempt!.responseHeaders!);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(30);
    expect(kept.reduce((n, [k, v]) => n + k.length + v.length, 0)).toBeLessThanOrEqual(4096);
    expect(kept.every(([k]) => k === k.toLowerCase())).toBe(true);
    expect(attempt!.responseHeaders!['x-note-0']).toBe('v'.repeat(200));
  });
});

describe('test events of a chosen type', () => {
  it('sends an event of a kind of the catalogue with its example data, and refuses a kind outside it', async () => {
    const h = harness();
    const { endpoint } = await h.admin.createEndpoint({
      url: 'https://bot.example.com/h',
      eventTypes: ['*'],
    });
    const delivery = await h.admin.sendTestEvent(endpoint.id, { eventType: 'order.paid' });
    expect(delivery.eventType).toBe('order.paid');
    expect(JSON.parse(delivery.payload)).toMatchObject({
      event: 'order.paid',
      data: h.admin.eventExample('order.paid', 1),
    });
    await expect(h.admin.sendTestEvent(endpoint.id, { eventType: 'order.nope' })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'eventType', code: 'invalid_value' }],
    });
    expect((await h.admin.sendTestEvent(endpoint.id)).eventType).toBe('webhook.test');
  });
});

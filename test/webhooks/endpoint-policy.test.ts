/**
 * Per-endpoint delivery policy, through a real switchboard (relay, fan-out, dispatcher) to loopback
 * receivers: thin payloads, an endpoint's own retry delays, custom headers (credentials masked in every
 * answer and in the delivery log), and an endpoint's own pace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import { createSwitchboard, type Switchboard, trustEveryone } from '../../src/index.js';
import { MASKED_HEADER_VALUE, verifyWebhook } from '../../src/webhooks/index.js';
import { until } from '../support/until.js';
import { eachAdapter, listen } from './support.js';

const started: Switchboard[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

const ADAPTERS = eachAdapter();

interface Arrival {
  readonly headers: Headers;
  readonly body: string;
  /** Wall-clock ms when it arrived. */
  readonly at: number;
}

/** A loopback receiver that records every request and answers with `status`. */
async function receiver(status = 200): Promise<{ url: string; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server = await listen(async (request) => {
    arrivals.push({ headers: request.headers, body: await request.text(), at: Date.now() });
    return new Response(status < 300 ? 'ok' : 'not now', { status });
  });
  return { url: `${server.url}/hooks`, arrivals };
}

/** A started switchboard on memory storage that may send to loopback, with its REST API. */
async function switchboardOnLoopback(storage: Storage) {
  const switchboard = createSwitchboard({
    storage,
    authenticate: trustEveryone,
    relayIntervalMs: 20,
    webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true }, pollIntervalMs: 1_000 },
  });
  started.push(switchboard);
  switchboard.start();
  const server = await listen(switchboard.fetch);
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...init.headers },
    });
  return { switchboard, admin: switchboard.webhooks!.admin, api };
}

describe.each(ADAPTERS)('on %s', (_adapter, storageOf) => {
  describe('a thin endpoint', () => {
    it('receives exactly event, event_id, subject and sequence, signed like any payload', async () => {
      const { switchboard, admin } = await switchboardOnLoopback(await storageOf());
      const thin = await receiver();
      const full = await receiver();
      const { secret } = await admin.createEndpoint({
        url: thin.url,
        eventTypes: ['client.*'],
        payload: 'thin',
      });
      await admin.createEndpoint({ url: full.url, eventTypes: ['client.*'] });
      const client = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
      await switchboard.domain.clients.update(client.id, { city: 'London' });
      await until(() => thin.arrivals.length === 2 && full.arrivals.length === 2, 'both deliveries to both');

      const bodies = thin.arrivals.map((a) => JSON.parse(a.body) as Record<string, unknown>);
      bodies.sort((a, b) => Number(a.sequence) - Number(b.sequence));
      expect(bodies).toEqual([
        { event: 'client.created', event_id: expect.any(String), subject: client.id, sequence: 1 },
        { event: 'client.updated', event_id: expect.any(String), subject: client.id, sequence: 2 },
      ]);
      expect(thin.arrivals.map((a) => a.body).join()).not.toContain('ada@example.com');
      for (const arrival of thin.arrivals) {
        const verified = await verifyWebhook({
          body: arrival.body,
          headers: arrival.headers,
          secrets: [secret],
        });
        expect(verified.ok).toBe(true);
      }
      // The endpoint beside it still gets the whole record.
      expect(full.arrivals.map((a) => a.body).join()).toContain('ada@example.com');
    });
  });

  describe("an endpoint's own retry schedule", () => {
    it('retries at the delays it names ([100, 200] ms), then gives up', async () => {
      const { switchboard, admin } = await switchboardOnLoopback(await storageOf());
      const failing = await receiver(503);
      const { endpoint } = await admin.createEndpoint({
        url: failing.url,
        eventTypes: ['client.created'],
        retrySchedule: [100, 200],
      });
      await switchboard.domain.clients.create({ name: 'Grace', email: 'grace@example.com' });
      const deliveries = () => admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 5 });
      await until(
        async () => (await deliveries()).items[0]?.status === 'dead',
        'the delivery given up',
        5_000,
      );

      const [delivery] = (await deliveries()).items;
      expect(delivery).toMatchObject({ attempts: 3, lastStatusCode: 503 });
      const starts = (await admin.listAttempts(delivery!.id)).map((a) => Date.parse(a.startedAt));
      // The sender's own record of each start: the delay after each failure, not the 1 s poll's.
      const waits = [starts[1]! - starts[0]!, starts[2]! - starts[1]!];
      expect(waits[0]).toBeGreaterThanOrEqual(100);
      // Well within the dispatcher's 1 s poll: it woke for the retry (with room for a busy machine).
      expect(waits[0]).toBeLessThan(700);
      expect(waits[1]).toBeGreaterThanOrEqual(200);
      expect(waits[1]).toBeLessThan(800);
      expect(failing.arrivals).toHaveLength(3);
    });

    it('accepts 100 ms, and refuses a schedule out of bounds with the field named', async () => {
      const { api } = await switchboardOnLoopback(await storageOf());
      const create = (body: Record<string, unknown>) =>
        api('/webhook-endpoints', {
          method: 'POST',
          body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'], ...body }),
        });
      expect((await create({ retrySchedule: [100] })).status).toBe(201);
      for (const retrySchedule of [[], [99], [86_400_001], Array(10).fill(1000), [1.5], ['1000']]) {
        const answer = await create({ retrySchedule });
        expect(answer.status, JSON.stringify(retrySchedule)).toBe(422);
        const problem = (await answer.json()) as { code: string; errors: { field: string }[] };
        expect(problem.code).toBe('validation_failed');
        expect(problem.errors[0]!.field).toMatch(/^retrySchedule/);
      }
      for (const maxPerSecond of [0, 0.05, 1001, -1]) {
        const answer = await create({ maxPerSecond });
        expect(answer.status, String(maxPerSecond)).toBe(422);
      }
      expect((await create({ payload: 'skinny' })).status).toBe(422);
    });
  });

  describe("an endpoint's own headers", () => {
    it('sends them on every delivery and never shows a credential again, in answers or in the log', async () => {
      const { switchboard, api, admin } = await switchboardOnLoopback(await storageOf());
      const target = await receiver();
      const created = await api('/webhook-endpoints', {
        method: 'POST',
        body: JSON.stringify({
          url: target.url,
          eventTypes: ['client.created'],
          headers: { 'X-Tenant': 'acme', Authorization: 'Bearer s3cr3t-token', 'x-api-key': 'k-123' },
        }),
      });
      expect(created.status).toBe(201);
      const endpoint = (await created.json()) as { id: string; headers: Record<string, string> };
      const masked = {
        'x-tenant': 'acme',
        authorization: MASKED_HEADER_VALUE,
        'x-api-key': MASKED_HEADER_VALUE,
      };
      expect(endpoint.headers).toEqual(masked);
      await switchboard.domain.clients.create({ name: 'Linus', email: 'linus@example.com' });
      await until(() => target.arrivals.length === 1, 'the delivery');

      const [arrival] = target.arrivals;
      expect(arrival!.headers.get('x-tenant')).toBe('acme');
      expect(arrival!.headers.get('authorization')).toBe('Bearer s3cr3t-token');
      expect(arrival!.headers.get('x-api-key')).toBe('k-123');
      // The sender's own headers are still its own.
      expect(arrival!.headers.get('content-type')).toBe('application/json');
      expect(arrival!.headers.get('x-signature')).toMatch(/^sha256=/);

      const read = await (await api(`/webhook-endpoints/${endpoint.id}`)).json();
      expect(read.headers).toEqual(masked);
      const { items } = await admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 5 });
      await until(async () => (await admin.getDelivery(items[0]!.id)).status === 'succeeded', 'the outcome');
      const log = await (
        await api(`/webhook-endpoints/${endpoint.id}/deliveries/${items[0]!.id}/attempts`)
      ).text();
      expect(log).toContain('acme');
      expect(log).toContain(JSON.stringify(MASKED_HEADER_VALUE));
      expect(log).not.toContain('s3cr3t');
      expect(log).not.toContain('k-123');
      // And in storage itself: the attempt was recorded masked.
      const [attempt] = await switchboard.storage.webhooks.attempts.listByDelivery(items[0]!.id);
      expect(JSON.stringify(attempt)).not.toContain('s3cr3t');
    });

    it('changes them as a merge patch: a name set, a null removed, the mask sent back keeping the value', async () => {
      const { admin } = await switchboardOnLoopback(await storageOf());
      const { endpoint } = await admin.createEndpoint({
        url: 'http://127.0.0.1:9/hooks',
        eventTypes: ['*'],
        headers: { authorization: 'Bearer one', 'x-tenant': 'acme' },
      });
      const changed = await admin.updateEndpoint(endpoint.id, {
        headers: { authorization: MASKED_HEADER_VALUE, 'x-tenant': null, 'x-region': 'eu' },
      });
      expect(changed.headers).toEqual({ authorization: MASKED_HEADER_VALUE, 'x-region': 'eu' });
      const stored = await admin.getEndpoint(endpoint.id);
      expect(stored.headers).toEqual(changed.headers);
      await expect(
        admin.updateEndpoint(endpoint.id, { headers: { cookie: MASKED_HEADER_VALUE } }),
      ).rejects.toMatchObject({ code: 'validation_failed', details: [{ field: 'headers.cookie' }] });
      const cleared = await admin.updateEndpoint(endpoint.id, { headers: null, retrySchedule: null });
      expect(cleared.headers).toBeUndefined();
    });

    it('refuses hop-by-hop headers, the sender’s own, and values that are not header values', async () => {
      const { api } = await switchboardOnLoopback(await storageOf());
      const refused = [
        { connection: 'close' },
        { 'transfer-encoding': 'chunked' },
        { host: 'example.com' },
        { 'content-type': 'text/plain' },
        { 'User-Agent': 'me' },
        { 'webhook-signature': 'v1,x' },
        { 'x-signature': 'sha256=0' },
        { traceparent: '00-0-0-00' },
        { 'bad name': 'x' },
        { 'x-ok': 'line\r\nbreak: injected' },
        { 'x-ok': '' },
        { 'x-ok': MASKED_HEADER_VALUE },
        { 'x-ok': 'y'.repeat(1001) },
        Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-h${i}`, 'v'])),
        { 'x-dup': 'a', 'X-Dup': 'b' },
      ];
      for (const headers of refused) {
        const answer = await api('/webhook-endpoints', {
          method: 'POST',
          body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'], headers }),
        });
        expect(answer.status, JSON.stringify(headers).slice(0, 80)).toBe(422);
        const problem = (await answer.json()) as { errors: { field: string; message: string }[] };
        expect(problem.errors[0]!.field).toMatch(/^headers/);
      }
    });
  });

  describe("an endpoint's own pace", () => {
    it('holds one endpoint to its maxPerSecond while another flows', async () => {
      const { switchboard, admin } = await switchboardOnLoopback(await storageOf());
      const slow = await receiver();
      const fast = await receiver();
      const { endpoint } = await admin.createEndpoint({
        url: slow.url,
        eventTypes: ['client.created'],
        maxPerSecond: 2,
      });
      await admin.createEndpoint({ url: fast.url, eventTypes: ['client.created'] });
      const t0 = Date.now();
      for (let i = 0; i < 6; i++)
        await switchboard.domain.clients.create({ name: `C${i}`, email: `c${i}@example.com` });
      await until(() => fast.arrivals.length === 6, 'the unpaced endpoint’s six');
      // The other endpoint is not held back by its neighbour's pace.
      expect(Date.now() - t0).toBeLessThan(2_400);
      expect(slow.arrivals.length).toBeLessThan(6);
      await until(() => slow.arrivals.length === 6, 'the paced endpoint’s six', 10_000);

      const { items } = await admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 10 });
      await until(async () => {
        const all = await Promise.all(items.map((d) => admin.getDelivery(d.id)));
        return all.every((d) => d.status === 'succeeded');
      }, 'the outcomes written');
      const starts = (await Promise.all(items.map((d) => admin.listAttempts(d.id))))
        .flat()
        .map((a) => Date.parse(a.startedAt))
        .sort((a, b) => a - b);
      expect(starts).toHaveLength(6);
      // Two a second: half a second apart, give or take a timer's few milliseconds of lateness and
      // the recorded start's own rounding; five gaps span at least 2.5 s less that slack.
      for (let i = 1; i < 6; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(480);
      expect(starts[5]! - starts[0]!).toBeGreaterThanOrEqual(2_480);
    });
  });
});

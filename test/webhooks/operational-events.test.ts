/**
 * Operational events: a delivery given up on, an endpoint enabled, disabled or its secret rotated are
 * events like any other, in the catalogue, committed with the change and sent signed and retried to the
 * endpoints subscribed to them; an operator endpoint that fails cannot feed itself events forever.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import { createSwitchboard, type Switchboard, trustEveryone } from '../../src/index.js';
import { verifyWebhook } from '../../src/webhooks/index.js';
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
}

async function receiver(status = 200): Promise<{ url: string; arrivals: Arrival[]; events: () => Event[] }> {
  const arrivals: Arrival[] = [];
  const server = await listen(async (request) => {
    arrivals.push({ headers: request.headers, body: await request.text() });
    return new Response(null, { status });
  });
  const events = () => arrivals.map((a) => JSON.parse(a.body) as Event);
  return { url: `${server.url}/hooks`, arrivals, events };
}

interface Event {
  readonly event: string;
  readonly event_id: string;
  readonly subject?: string;
  readonly sequence?: number;
  readonly data: Record<string, unknown>;
}

function switchboardOnLoopback(storage: Storage) {
  const switchboard = createSwitchboard({
    storage,
    authenticate: trustEveryone,
    relayIntervalMs: 20,
    webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true }, pollIntervalMs: 50 },
  });
  started.push(switchboard);
  switchboard.start();
  return { switchboard, admin: switchboard.webhooks!.admin };
}

describe.each(ADAPTERS)('on %s', (_adapter, storageOf) => {
  describe('webhook_delivery.exhausted', () => {
    it('reaches an operator endpoint, signed, when a delivery is given up on', async () => {
      const { switchboard, admin } = switchboardOnLoopback(await storageOf());
      const failing = await receiver(503);
      const operator = await receiver();
      const { endpoint } = await admin.createEndpoint({
        url: failing.url,
        eventTypes: ['client.created'],
        retrySchedule: [100],
      });
      const { secret } = await admin.createEndpoint({
        url: operator.url,
        eventTypes: ['webhook_delivery.exhausted'],
      });
      await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
      await until(() => operator.arrivals.length === 1, 'the exhausted event at the operator endpoint');

      const [delivery] = (await admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 5 }))
        .items;
      const [event] = operator.events();
      expect(event).toMatchObject({
        event: 'webhook_delivery.exhausted',
        subject: endpoint.id,
        sequence: 1,
        data: {
          id: delivery!.id,
          endpointId: endpoint.id,
          url: failing.url,
          eventId: delivery!.eventId,
          eventType: 'client.created',
          attempts: 2,
          lastStatusCode: 503,
          lastError: 'HTTP 503',
        },
      });
      const [arrival] = operator.arrivals;
      expect(
        (await verifyWebhook({ body: arrival!.body, headers: arrival!.headers, secrets: [secret] })).ok,
      ).toBe(true);
      expect(failing.arrivals).toHaveLength(2);
    });

    it('is not announced again for a delivery of itself, so a failing operator endpoint ends', async () => {
      const { switchboard, admin } = switchboardOnLoopback(await storageOf());
      // Subscribed to everything, failing every time, retrying once: it is sent its own exhaustion.
      const operator = await receiver(500);
      const { endpoint } = await admin.createEndpoint({
        url: operator.url,
        eventTypes: ['*'],
        retrySchedule: [100],
      });
      await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
      const exhausted = () =>
        admin.listDeliveries(
          { endpointId: endpoint.id, eventType: 'webhook_delivery.exhausted' },
          { offset: 0, limit: 10 },
        );
      await until(
        async () => (await exhausted()).items[0]?.status === 'dead',
        'the exhausted event given up on',
      );
      // Time for anything that would follow: a relay pass and a dispatcher poll, several times over.
      await new Promise((resolve) => setTimeout(resolve, 500));

      const all = await admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 10 });
      expect(all.items.map((d) => [d.eventType, d.status]).sort()).toEqual([
        ['client.created', 'dead'],
        ['webhook_delivery.exhausted', 'dead'],
      ]);
      expect(operator.events().map((e) => e.event)).toEqual([
        'client.created',
        'client.created',
        'webhook_delivery.exhausted',
        'webhook_delivery.exhausted',
      ]);
    });
  });

  describe('webhook_endpoint events', () => {
    it('announce an endpoint disabled, enabled and its secret rotated, in order, never with the secret', async () => {
      const { admin } = switchboardOnLoopback(await storageOf());
      const operator = await receiver();
      await admin.createEndpoint({ url: operator.url, eventTypes: ['webhook_endpoint.*'] });
      const { endpoint, secret } = await admin.createEndpoint({
        url: 'http://127.0.0.1:9/hooks',
        eventTypes: ['order.*'],
      });
      await admin.updateEndpoint(endpoint.id, { enabled: false });
      await admin.updateEndpoint(endpoint.id, { description: 'no event for this' });
      await admin.updateEndpoint(endpoint.id, { enabled: true });
      const rotated = await admin.rotateSecret(endpoint.id, { overlapSeconds: 3600 });
      await until(() => operator.arrivals.length === 3, 'three events');

      const events = operator.events().sort((a, b) => a.sequence! - b.sequence!);
      expect(events).toMatchObject([
        {
          event: 'webhook_endpoint.disabled',
          subject: endpoint.id,
          sequence: 1,
          data: { id: endpoint.id, url: endpoint.url, reason: 'manual', failingSince: null },
        },
        {
          event: 'webhook_endpoint.enabled',
          subject: endpoint.id,
          sequence: 2,
          data: { id: endpoint.id, url: endpoint.url, disabledReason: 'manual' },
        },
        {
          event: 'webhook_endpoint.secret_rotated',
          subject: endpoint.id,
          sequence: 3,
          data: {
            id: endpoint.id,
            rotatedAt: rotated.endpoint.updatedAt,
            previousSecretsExpireAt: rotated.endpoint.secrets[1]!.expiresAt,
          },
        },
      ]);
      const bodies = operator.arrivals.map((a) => a.body).join();
      expect(bodies).not.toContain(secret);
      expect(bodies).not.toContain(rotated.secret);
    });

    it('announces nothing when the change is refused', async () => {
      const { switchboard, admin } = switchboardOnLoopback(await storageOf());
      const { endpoint } = await admin.createEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] });
      await expect(
        admin.updateEndpoint(endpoint.id, { enabled: false }, { ifVersion: 7 }),
      ).rejects.toMatchObject({
        code: 'precondition_failed',
      });
      await switchboard.relay.flush();
      const { items } = await admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 10 });
      expect(items).toEqual([]);
      expect((await admin.getEndpoint(endpoint.id)).enabled).toBe(true);
    });
  });

  describe('the catalogue', () => {
    it('lists every operational event with an example of its data', async () => {
      const { admin } = switchboardOnLoopback(await storageOf());
      for (const type of [
        'webhook_delivery.exhausted',
        'webhook_endpoint.disabled',
        'webhook_endpoint.enabled',
        'webhook_endpoint.secret_rotated',
      ]) {
        expect(admin.eventTypes()).toContain(type);
        expect(admin.eventExample(type)).toMatchObject({ url: 'https://bot.example.com/hooks' });
      }
    });
  });
});

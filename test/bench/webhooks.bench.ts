/**
 * On demand: `npx vitest bench --run test/bench/webhooks.bench.ts`. vitest prints each group's
 * operations per second and how many times faster the fastest entry is than the others (the peer
 * measured in the same run).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, bench, describe } from 'vitest';
import { serve } from '../../src/node/serve.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  createWebhookAdmin,
  createWebhookDispatcher,
  createWebhookFanOut,
  signWebhook,
  verifyWebhook,
} from '../../src/webhooks/index.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = JSON.stringify({
  event: 'order.shipped',
  event_id: 'evt_bench',
  created_at: '2026-01-01T00:00:00.000Z',
  data: {
    id: 'ord_1',
    status: 'shipped',
    total: '129.90',
    currency: 'EUR',
    customerEmail: 'ada@example.com',
  },
});
const reference = new Webhook(secret);

describe('sign + verify one webhook (Standard Webhooks scheme)', () => {
  bench('switchboard-kit', async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = await signWebhook({
      body,
      secrets: [secret],
      eventId: 'msg_1',
      timestamp,
      scheme: 'standard',
    });
    const result = await verifyWebhook({ body, headers, secrets: [secret], scheme: 'standard' });
    if (!result.ok) throw new Error(result.message);
  });
  bench('standardwebhooks package', () => {
    const now = new Date();
    const signature = reference.sign('msg_1', now, body);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    };
    reference.verify(body, headers);
  });
});

describe('sign + verify one webhook (X-Signature: sha256 over "<timestamp>.<body>")', () => {
  bench('switchboard-kit', async () => {
    const headers = await signWebhook({
      body,
      secrets: [secret],
      eventId: 'evt_1',
      timestamp: Math.floor(Date.now() / 1000),
    });
    const result = await verifyWebhook({ body, headers, secrets: [secret] });
    if (!result.ok) throw new Error(result.message);
  });
});

// The measure: a 1 KiB body, against the package and against node:crypto used directly.
const kibBody = JSON.stringify({
  event: 'order.shipped',
  event_id: 'evt_bench',
  data: { note: 'x'.repeat(950) },
});
const kibKey = Buffer.from(secret.slice(6), 'base64');

describe('sign + verify a 1 KiB webhook (Standard Webhooks scheme)', () => {
  bench('switchboard-kit', async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = await signWebhook({
      body: kibBody,
      secrets: [secret],
      eventId: 'msg_1',
      timestamp,
      scheme: 'standard',
    });
    const result = await verifyWebhook({ body: kibBody, headers, secrets: [secret], scheme: 'standard' });
    if (!result.ok) throw new Error(result.message);
  });
  bench('standardwebhooks package', () => {
    const now = new Date();
    const signature = reference.sign('msg_1', now, kibBody);
    reference.verify(kibBody, {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    });
  });
  bench('node:crypto createHmac + timingSafeEqual (the limit)', () => {
    const signed = `msg_1.${Math.floor(Date.now() / 1000)}.${kibBody}`;
    const sent = createHmac('sha256', kibKey).update(signed).digest();
    const expected = createHmac('sha256', kibKey).update(signed).digest();
    if (!timingSafeEqual(sent, expected)) throw new Error('mismatch');
  });
});

const BATCH = 200;
const receiver = await serve({ fetch: async () => new Response('ok'), port: 0, shutdownSignals: [] });
afterAll(() => receiver.close());

describe(`deliver ${BATCH} events to a local receiver (divide by ${BATCH} for deliveries/s)`, () => {
  bench(
    'switchboard-kit dispatcher (claim, sign, POST, record)',
    async () => {
      const storage = createMemoryStorage();
      const outbound = { allowHttp: true, allowPrivateAddresses: true };
      await createWebhookAdmin({ storage, outbound }).createEndpoint({
        url: `${receiver.url}/hooks`,
        eventTypes: ['*'],
      });
      const fanOut = createWebhookFanOut({ storage });
      for (let i = 0; i < BATCH; i++) {
        await fanOut([
          {
            id: `evt_${i}`,
            type: 'order.shipped',
            occurredAt: '2026-01-01T00:00:00.000Z',
            data: { i },
          },
        ]);
      }
      const dispatcher = createWebhookDispatcher({ storage, outbound, concurrency: 16, maxPerEndpoint: 16 });
      const sent = await dispatcher.runOnce();
      if (sent !== BATCH) throw new Error(`sent ${sent}`);
    },
    { iterations: 5, time: 0 },
  );
  bench(
    'peer: bare fetch POSTs, 16 at a time (no signing, no storage)',
    async () => {
      let next = 0;
      const worker = async () => {
        while (next < BATCH) {
          next++;
          const response = await fetch(`${receiver.url}/hooks`, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json' },
          });
          await response.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
    },
    { iterations: 5, time: 0 },
  );
});

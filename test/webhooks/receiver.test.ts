import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import {
  createWebhookReceiver,
  type ReceivedWebhook,
  signWebhook,
  type WebhookReceiverOptions,
} from '../../src/webhooks/index.js';
import { manualClock } from '../support/clock.js';
import { listen } from './support.js';

const secret = 'whsec_cmVjZWl2ZXItdGVzdC1zZWNyZXQ=';
const clock = manualClock(Date.UTC(2026, 0, 1));
const now = (): number => Math.floor(clock.now() / 1000);

async function receiverServer(options: Partial<WebhookReceiverOptions> = {}) {
  const processed: ReceivedWebhook[] = [];
  const receive = createWebhookReceiver({
    secrets: [secret],
    idempotency: createMemoryStorage().idempotency,
    clock,
    onEvent: (event) => {
      processed.push(event);
    },
    ...options,
  });
  const server = await listen(receive);
  return { url: `${server.url}/webhooks`, processed, receive };
}

function body(eventId = 'evt_1', extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    event: 'order.shipped',
    event_id: eventId,
    created_at: '2026-01-01T00:00:00Z',
    data: { id: 'ord_1', note: 'Grüße ✓' },
    ...extra,
  });
}

async function post(url: string, text: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body: text, headers });
}

async function signedPost(
  url: string,
  text: string,
  opts: { timestamp?: number; secrets?: string[] } = {},
): Promise<Response> {
  const headers = await signWebhook({
    body: text,
    secrets: opts.secrets ?? [secret],
    eventId: 'evt_1',
    timestamp: opts.timestamp ?? now(),
  });
  return post(url, text, headers);
}

describe('webhook receiver', () => {
  it('verifies, processes and answers 200', async () => {
    const r = await receiverServer();
    const response = await signedPost(r.url, body());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'processed', event_id: 'evt_1' });
    expect(r.processed).toMatchObject([
      { id: 'evt_1', type: 'order.shipped', payload: { data: { note: 'Grüße ✓' } } },
    ]);
  });

  it('rejects a tampered body, a wrong secret, and stale or future timestamps with 401 and the reason', async () => {
    const r = await receiverServer();
    const text = body();
    const headers = await signWebhook({ body: text, secrets: [secret], eventId: 'evt_1', timestamp: now() });
    const cases: [Promise<Response>, string][] = [
      [post(r.url, text.replace('ord_1', 'ord_2'), headers), 'mismatch'],
      [signedPost(r.url, text, { secrets: ['whsec_d3Jvbmc='] }), 'mismatch'],
      [signedPost(r.url, text, { timestamp: now() - 301 }), 'stale'],
      [signedPost(r.url, text, { timestamp: now() + 301 }), 'future'],
    ];
    for (const [pending, reason] of cases) {
      const response = await pending;
      expect(response.status, reason).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({
        code: 'unauthorized',
        errors: [{ field: 'signature', code: reason }],
      });
    }
    expect(r.processed).toEqual([]);
  });

  it('answers 400 when the signature headers are missing or malformed', async () => {
    const r = await receiverServer();
    const missing = await post(r.url, body(), { 'content-type': 'application/json' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ errors: [{ code: 'missing_header' }] });
    const malformed = await post(r.url, body(), {
      'x-signature': 'sha256=xyz',
      'x-timestamp': String(now()),
    });
    expect(await malformed.json()).toMatchObject({ status: 400, errors: [{ code: 'malformed' }] });
  });

  it('processes an event_id once when it arrives 50 times concurrently; every copy gets 200', async () => {
    let running = 0;
    const r = await receiverServer({
      onEvent: async () => {
        running++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      },
    });
    const text = body('evt_dup');
    const headers = await signWebhook({
      body: text,
      secrets: [secret],
      eventId: 'evt_dup',
      timestamp: now(),
    });
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(r.url, text, headers)));
    expect(responses.map((res) => res.status)).toEqual(Array(50).fill(200));
    const statuses = await Promise.all(responses.map(async (res) => (await res.json()).status));
    expect(statuses.filter((s) => s === 'processed')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'duplicate')).toHaveLength(49);
    expect(running).toBe(1);
    const later = await signedPost(r.url, text);
    expect(await later.json()).toEqual({ status: 'duplicate', event_id: 'evt_dup' });
  });

  it('does not mark a failed event as done, so the sender’s retry processes it again', async () => {
    let calls = 0;
    const r = await receiverServer({
      onEvent: () => {
        calls++;
        if (calls === 1) throw new Error('database down');
      },
    });
    const first = await signedPost(r.url, body('evt_retry'));
    expect(first.status).toBe(500);
    expect(await first.text()).not.toContain('database down');
    const second = await signedPost(r.url, body('evt_retry'));
    expect(await second.json()).toEqual({ status: 'processed', event_id: 'evt_retry' });
    expect(calls).toBe(2);
  });

  it('runs deferred work after answering, in a bounded background queue', async () => {
    const done: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const r = await receiverServer({
      background: { concurrency: 1, maxQueued: 1 },
      onEvent: (event, { defer }) =>
        defer(async () => {
          await gate;
          done.push(event.id);
        }),
    });
    expect((await signedPost(r.url, body('evt_a'))).status).toBe(200);
    expect(done).toEqual([]);
    expect((await signedPost(r.url, body('evt_b'))).status).toBe(200);
    // One running, one waiting: the queue is full, so the sender is asked to come back later.
    const full = await signedPost(r.url, body('evt_c'));
    expect(full.status).toBe(503);
    release();
    await r.receive.drain();
    expect(done).toEqual(['evt_a', 'evt_b']);
    expect((await signedPost(r.url, body('evt_c'))).status).toBe(200);
    await r.receive.drain();
    expect(done).toEqual(['evt_a', 'evt_b', 'evt_c']);
  });

  it('hands deferred work to waitUntil when the runtime has it', async () => {
    const handed: Promise<unknown>[] = [];
    const r = await receiverServer({
      waitUntil: (p) => handed.push(p),
      onEvent: (_e, { defer }) => defer(async () => {}),
    });
    expect((await signedPost(r.url, body('evt_w'))).status).toBe(200);
    expect(handed).toHaveLength(1);
  });

  it('refuses bodies over the limit and methods other than POST', async () => {
    const r = await receiverServer({ maxBodyBytes: 100 });
    const big = await signedPost(r.url, body('evt_big', { padding: 'x'.repeat(200) }));
    expect(big.status).toBe(413);
    const get = await fetch(r.url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('receives the Standard Webhooks scheme, deduplicating on webhook-id', async () => {
    const r = await receiverServer({ scheme: 'standard' });
    const text = JSON.stringify({ type: 'order.paid', data: { id: 'ord_9' } });
    const headers = await signWebhook({
      body: text,
      secrets: [secret],
      eventId: 'msg_1',
      timestamp: now(),
      scheme: 'standard',
    });
    expect(await (await post(r.url, text, headers)).json()).toEqual({
      status: 'processed',
      event_id: 'msg_1',
    });
    expect(await (await post(r.url, text, headers)).json()).toEqual({
      status: 'duplicate',
      event_id: 'msg_1',
    });
    expect(r.processed).toMatchObject([{ id: 'msg_1', type: 'order.paid' }]);
  });
});

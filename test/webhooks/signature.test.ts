import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../src/webhooks/index.js';
import { manualClock } from '../support/clock.js';

const clock = manualClock(Date.UTC(2026, 0, 1));
const nowSeconds = (): number => Math.floor(clock.now() / 1000);
const secret = 'whsec_c2hhcmVkLXNlY3JldC1mb3ItdGVzdHMtb25seQ==';
const body = JSON.stringify({
  event: 'order.created',
  event_id: 'evt_1',
  data: { customerEmail: 'zoë@exämple.com', note: '注文 🚚' },
});

async function signed(overrides: { body?: string; timestamp?: number; secrets?: string[] } = {}) {
  return signWebhook({
    body: overrides.body ?? body,
    secrets: overrides.secrets ?? [secret],
    eventId: 'evt_1',
    timestamp: overrides.timestamp ?? nowSeconds(),
  });
}

describe('signing and verifying (sha256 over "<timestamp>.<body>")', () => {
  it('signs exactly the bytes "<timestamp>.<body>" as lowercase hex HMAC-SHA256', async () => {
    const headers = await signed();
    const key = await crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${nowSeconds()}.${body}`));
    expect(headers['x-signature']).toBe(`sha256=${Buffer.from(mac).toString('hex')}`);
    expect(headers['x-timestamp']).toBe(String(nowSeconds()));
    expect(headers['x-event-id']).toBe('evt_1');
    expect(headers['content-type']).toBe('application/json');
  });

  it('accepts a genuine request, multi-byte UTF-8 included, given as bytes or text', async () => {
    const headers = await signed();
    const bytes = new TextEncoder().encode(body);
    expect(await verifyWebhook({ body: bytes, headers, secrets: [secret], clock })).toEqual({
      ok: true,
      eventId: 'evt_1',
      timestamp: nowSeconds(),
    });
    expect((await verifyWebhook({ body, headers: new Headers(headers), secrets: [secret], clock })).ok).toBe(
      true,
    );
  });

  it("reads a plain record's headers however they are spelled, the lower-case spelling first", async () => {
    const headers = await signed();
    const spelled = {
      'X-Signature': headers['x-signature']!,
      'X-TIMESTAMP': headers['x-timestamp']!,
      'x-Event-Id': headers['x-event-id']!,
    };
    expect(await verifyWebhook({ body, headers: spelled, secrets: [secret], clock })).toEqual({
      ok: true,
      eventId: 'evt_1',
      timestamp: nowSeconds(),
    });
    // Both spellings of the signature: the lower-case one is the one read.
    const forged = { ...headers, 'X-Signature': `sha256=${'0'.repeat(64)}` };
    expect((await verifyWebhook({ body, headers: forged, secrets: [secret], clock })).ok).toBe(true);
    const wrong = { ...spelled, 'x-signature': `sha256=${'0'.repeat(64)}` };
    expect(await verifyWebhook({ body, headers: wrong, secrets: [secret], clock })).toMatchObject({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('rejects a tampered body as a mismatch', async () => {
    const headers = await signed();
    const result = await verifyWebhook({
      body: body.replace('zoë', 'zoe'),
      headers,
      secrets: [secret],
      clock,
    });
    expect(result).toMatchObject({ ok: false, reason: 'mismatch' });
  });

  it('rejects a replay with a fresh timestamp as a mismatch', async () => {
    const headers = {
      ...(await signed({ timestamp: nowSeconds() - 600 })),
      'x-timestamp': String(nowSeconds()),
    };
    expect(await verifyWebhook({ body, headers, secrets: [secret], clock })).toMatchObject({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('rejects a wrong secret, and accepts any one of several (rotation)', async () => {
    const headers = await signed();
    const other = generateWebhookSecret();
    expect(await verifyWebhook({ body, headers, secrets: [other], clock })).toMatchObject({
      reason: 'mismatch',
    });
    expect((await verifyWebhook({ body, headers, secrets: [other, secret], clock })).ok).toBe(true);
  });

  it('accepts a request signed with both the old and the new secret during an overlap', async () => {
    const fresh = generateWebhookSecret();
    const headers = await signed({ secrets: [fresh, secret] });
    expect(headers['x-signature']).toMatch(/^sha256=[0-9a-f]{64},sha256=[0-9a-f]{64}$/);
    expect((await verifyWebhook({ body, headers, secrets: [secret], clock })).ok).toBe(true);
    expect((await verifyWebhook({ body, headers, secrets: [fresh], clock })).ok).toBe(true);
  });

  it('rejects timestamps older or further ahead than the tolerance (5 minutes by default)', async () => {
    const old = await signed({ timestamp: nowSeconds() - 301 });
    const edge = await signed({ timestamp: nowSeconds() - 300 });
    const ahead = await signed({ timestamp: nowSeconds() + 301 });
    expect(await verifyWebhook({ body, headers: old, secrets: [secret], clock })).toMatchObject({
      ok: false,
      reason: 'stale',
    });
    expect((await verifyWebhook({ body, headers: edge, secrets: [secret], clock })).ok).toBe(true);
    expect(await verifyWebhook({ body, headers: ahead, secrets: [secret], clock })).toMatchObject({
      ok: false,
      reason: 'future',
    });
    const wide = await verifyWebhook({ body, headers: old, secrets: [secret], clock, toleranceSeconds: 600 });
    expect(wide.ok).toBe(true);
  });

  it('says which header is missing', async () => {
    const { 'x-signature': _, ...noSignature } = await signed();
    const { 'x-timestamp': __, ...noTimestamp } = await signed();
    expect(await verifyWebhook({ body, headers: noSignature, secrets: [secret], clock })).toMatchObject({
      reason: 'missing_header',
      message: expect.stringContaining('x-signature'),
    });
    expect(await verifyWebhook({ body, headers: noTimestamp, secrets: [secret], clock })).toMatchObject({
      reason: 'missing_header',
      message: expect.stringContaining('x-timestamp'),
    });
  });

  it('never throws on a signature of the wrong length or alphabet, and never reveals the expected value', async () => {
    const headers = await signed();
    const expected = headers['x-signature']!;
    const cases: [string, string][] = [
      ['sha256=abc', 'malformed'],
      ['sha256=abcd', 'mismatch'],
      [`sha256=${'0'.repeat(64)}`, 'mismatch'],
      [`sha256=${'a'.repeat(1000)}`, 'mismatch'],
      ['sha256=zzzz', 'malformed'],
      ['md5=abcd', 'malformed'],
      ['', 'missing_header'],
      ['sha256=💥💥', 'malformed'],
    ];
    for (const [signature, reason] of cases) {
      const result = await verifyWebhook({
        body,
        headers: { ...headers, 'x-signature': signature },
        secrets: [secret],
        clock,
      });
      expect(result, signature).toMatchObject({ ok: false, reason });
      expect(JSON.stringify(result)).not.toContain(expected.slice(7, 20));
    }
    expect(
      await verifyWebhook({ body, headers: { ...headers, 'x-timestamp': '12e3' }, secrets: [secret], clock }),
    ).toMatchObject({ reason: 'malformed' });
    expect(await verifyWebhook({ body, headers, secrets: [''], clock })).toMatchObject({
      reason: 'mismatch',
    });
  });

  it('verifies body-only signatures (e.g. GitHub style) with a custom header', async () => {
    const headers = await signWebhook({
      body,
      secrets: [secret],
      eventId: 'evt_1',
      timestamp: nowSeconds(),
      content: 'body',
    });
    const key = await crypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const mac = Buffer.from(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(body))).toString(
      'hex',
    );
    expect(headers['x-signature']).toBe(`sha256=${mac}`);
    const github = { 'x-hub-signature-256': `sha256=${mac}` };
    const result = await verifyWebhook({
      body,
      headers: github,
      secrets: [secret],
      content: 'body',
      signatureHeader: 'x-hub-signature-256',
      clock,
    });
    expect(result.ok).toBe(true);
    expect(
      await verifyWebhook({
        body: `${body} `,
        headers: github,
        secrets: [secret],
        content: 'body',
        signatureHeader: 'x-hub-signature-256',
        clock,
      }),
    ).toMatchObject({ reason: 'mismatch' });
  });
});

describe('Standard Webhooks scheme, interoperable with the standardwebhooks package', () => {
  it('produces signatures the standardwebhooks package accepts', async () => {
    const headers = await signWebhook({
      body,
      secrets: [secret],
      eventId: 'msg_1',
      timestamp: Math.floor(Date.now() / 1000),
      scheme: 'standard',
    });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('accepts what the standardwebhooks package signs, and rejects a tampered body', async () => {
    const sender = new Webhook(secret);
    const timestamp = new Date(clock.now());
    const headers = {
      'webhook-id': 'msg_2',
      'webhook-timestamp': String(nowSeconds()),
      'webhook-signature': sender.sign('msg_2', timestamp, body),
    };
    const ok = await verifyWebhook({ body, headers, secrets: [secret], scheme: 'standard', clock });
    expect(ok).toEqual({ ok: true, eventId: 'msg_2', timestamp: nowSeconds() });
    const bad = await verifyWebhook({
      body: `${body}x`,
      headers,
      secrets: [secret],
      scheme: 'standard',
      clock,
    });
    expect(bad).toMatchObject({ ok: false, reason: 'mismatch' });
    const noId = await verifyWebhook({
      body,
      headers: { ...headers, 'webhook-id': '' },
      secrets: [secret],
      scheme: 'standard',
      clock,
    });
    expect(noId).toMatchObject({ ok: false, reason: 'missing_header' });
  });

  it('tells a malformed signature or timestamp from a mismatch', async () => {
    const headers = await signWebhook({
      body,
      secrets: [secret],
      eventId: 'msg_3',
      timestamp: nowSeconds(),
      scheme: 'standard',
    });
    const valid = headers['webhook-signature']!;
    const cases: [Record<string, string>, string][] = [
      [{ 'webhook-signature': 'v1,not*base64!' }, 'malformed'],
      [{ 'webhook-signature': 'v2,abcd v1,' }, 'malformed'],
      [{ 'webhook-signature': `v1,${'A'.repeat(43)}=` }, 'mismatch'],
      [{ 'webhook-signature': `v1,not*base64! ${valid}` }, 'ok'],
      [{ 'webhook-signature': `  ${valid},ignored  ` }, 'ok'],
      [{ 'webhook-timestamp': `${nowSeconds()}x` }, 'malformed'],
      [{ 'webhook-timestamp': '1234567890123' }, 'malformed'],
      [{ 'webhook-timestamp': ` ${nowSeconds()} ` }, 'ok'],
    ];
    for (const [changed, reason] of cases) {
      const result = await verifyWebhook({
        body,
        headers: { ...headers, ...changed },
        secrets: [secret],
        scheme: 'standard',
        clock,
      });
      expect(result.ok ? 'ok' : result.reason, JSON.stringify(changed)).toBe(reason);
    }
  });

  it('generates secrets the standardwebhooks package can use', async () => {
    const fresh = generateWebhookSecret();
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = await signWebhook({
      body,
      secrets: [fresh],
      eventId: 'msg_3',
      timestamp: Math.floor(Date.now() / 1000),
      scheme: 'standard',
    });
    expect(() => new Webhook(fresh).verify(body, headers)).not.toThrow();
  });
});

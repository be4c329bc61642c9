import { expect, it } from 'vitest';
import type { Storage, WebhookDeliveryRecord } from '../../core/storage/index.js';
import { ms } from './fixtures.js';
import { aDelivery, anAttempt, anEndpoint } from './webhook-fixtures.js';

async function aStoredDelivery(s: Storage, endpointId?: string): Promise<WebhookDeliveryRecord> {
  if (endpointId === undefined) {
    const endpoint = anEndpoint();
    await s.webhooks.endpoints.insert(endpoint);
    endpointId = endpoint.id;
  }
  const delivery = aDelivery(endpointId);
  await s.webhooks.deliveries.createIfAbsent(delivery);
  return delivery;
}

/** The attempt log: order, the headers sent, and an endpoint's latest failures. */
export function webhookAttemptContract(storage: () => Storage): void {
  it('keeps the attempts of a delivery in order', async () => {
    const s = storage();
    const delivery = await aStoredDelivery(s);
    const attempt = (number: number) =>
      anAttempt(delivery, {
        id: `wha_contract_${delivery.id}_${number}`,
        number,
        startedAt: ms(number),
        statusCode: number === 1 ? null : 200,
        responseExcerpt: number === 1 ? null : 'ok',
        error: number === 1 ? 'timeout' : null,
        succeeded: number !== 1,
      });
    await s.webhooks.attempts.insert(attempt(1));
    await s.webhooks.attempts.insert(attempt(2));
    expect(await s.webhooks.attempts.listByDelivery(delivery.id)).toEqual([attempt(1), attempt(2)]);
    await s.webhooks.attempts.insertMany([attempt(3), attempt(4), attempt(5)]);
    await s.webhooks.attempts.insertMany([]);
    expect((await s.webhooks.attempts.listByDelivery(delivery.id)).map((a) => a.number)).toEqual([
      1, 2, 3, 4, 5,
    ]);
    expect((await s.webhooks.attempts.listByDelivery(delivery.id))[4]).toEqual(attempt(5));
  });

  it('keeps the request headers of each attempt as sent, in their order, or null when none were sent', async () => {
    const s = storage();
    const delivery = await aStoredDelivery(s);
    const sent = anAttempt(delivery, {
      requestHeaders: {
        'content-type': 'application/json',
        'x-timestamp': '1767225600',
        'x-signature': 'sha256=ab,sha256=cd',
        'user-agent': 'switchboard-webhooks/1',
        'x-note': 'ünïcode "quoted" \\ text',
      },
    });
    const refused = anAttempt(delivery, { number: 2, requestHeaders: null, error: 'Refused address.' });
    const one = anAttempt(delivery, { number: 3 });
    await s.webhooks.attempts.insertMany([sent, refused]);
    await s.webhooks.attempts.insert(one);
    const stored = await s.webhooks.attempts.listByDelivery(delivery.id);
    expect(stored).toEqual([sent, refused, one]);
    expect(Object.keys(stored[0]!.requestHeaders!)).toEqual(Object.keys(sent.requestHeaders!));
  });

  it('keeps the response headers of each attempt, or null when there was no answer', async () => {
    const s = storage();
    const delivery = await aStoredDelivery(s);
    const answered = anAttempt(delivery, {
      responseHeaders: { 'content-type': 'text/plain; charset=utf-8', 'x-request-id': 'ünï "q" \\ 1' },
    });
    const silent = anAttempt(delivery, {
      number: 2,
      responseHeaders: null,
      statusCode: null,
      error: 'timeout',
    });
    const third = anAttempt(delivery, { number: 3 });
    await s.webhooks.attempts.insertMany([answered, silent]);
    await s.webhooks.attempts.insert(third);
    expect(await s.webhooks.attempts.listByDelivery(delivery.id)).toEqual([answered, silent, third]);
  });

  it("counts each endpoint's attempts per hour since a time, and names its latest attempt ever", async () => {
    const s = storage();
    const first = await aStoredDelivery(s);
    const second = await aStoredDelivery(s, first.endpointId);
    const quiet = await aStoredDelivery(s);
    const hour = 3_600_000;
    const since = ms(0) + 10 * hour;
    const at = (d: WebhookDeliveryRecord, number: number, startedAt: number, succeeded: boolean) =>
      anAttempt(d, { number, startedAt, succeeded, statusCode: succeeded ? 200 : 500 });
    const old = at(first, 1, since - 1, false);
    const attempts = [
      old,
      at(first, 2, since, false),
      at(second, 1, since + hour - 1, true),
      at(first, 3, since + 2 * hour + 5, true),
      at(second, 2, since + 2 * hour + 5, false),
    ];
    await s.webhooks.attempts.insertMany(attempts);
    const found = await s.webhooks.attempts.activity(
      [first.endpointId, quiet.endpointId, 'whe_nobody'],
      since,
    );
    expect(found).toEqual([
      {
        endpointId: first.endpointId,
        hours: [
          { hour: 0, succeeded: 1, failed: 1 },
          { hour: 2, succeeded: 1, failed: 1 },
        ],
        // Same start time: the one recorded last.
        latest: attempts[4],
      },
      { endpointId: quiet.endpointId, hours: [], latest: null },
      { endpointId: 'whe_nobody', hours: [], latest: null },
    ]);
    expect(await s.webhooks.attempts.activity([first.endpointId], since + 3 * hour)).toEqual([
      { endpointId: first.endpointId, hours: [], latest: attempts[4] },
    ]);
    expect(await s.webhooks.attempts.activity([], since)).toEqual([]);
  });

  it("lists an endpoint's latest failed attempts, newest first, up to the limit", async () => {
    const s = storage();
    const first = await aStoredDelivery(s);
    const second = await aStoredDelivery(s, first.endpointId);
    const elsewhere = await aStoredDelivery(s);
    const failed = (d: WebhookDeliveryRecord, number: number, seconds: number) =>
      anAttempt(d, { number, startedAt: ms(seconds) });
    const attempts = [
      failed(first, 1, 10),
      failed(second, 1, 20),
      anAttempt(first, { number: 2, startedAt: ms(30), statusCode: 200, succeeded: true }),
      failed(second, 2, 40),
      failed(elsewhere, 1, 50),
    ];
    await s.webhooks.attempts.insertMany(attempts);
    // Same start time: the one recorded last comes first.
    const sameTime = failed(first, 3, 40);
    await s.webhooks.attempts.insert(sameTime);
    const ids = async (limit: number) =>
      (await s.webhooks.attempts.listFailures(first.endpointId, limit)).map((a) => a.id);
    expect(await ids(10)).toEqual([sameTime.id, attempts[3]!.id, attempts[1]!.id, attempts[0]!.id]);
    expect(await ids(2)).toEqual([sameTime.id, attempts[3]!.id]);
    expect((await s.webhooks.attempts.listFailures(elsewhere.endpointId, 10))[0]).toEqual(attempts[4]);
    expect(await s.webhooks.attempts.listFailures('whe_nobody', 10)).toEqual([]);
  });
}

import { expect, it } from 'vitest';
import { type Erasure, erasedPayload } from '../../core/storage/erasure.js';
import type { Storage } from '../../core/storage/index.js';
import { anEvent, ms } from './fixtures.js';
import { aDelivery, anAttempt, anEndpoint } from './webhook-fixtures.js';

const NOW = Date.UTC(2026, 0, 1);
const ERASURE: Erasure = { owner: 'cli_erased', keep: ['id', 'clientId'], at: ms(500) };
const personal = { id: 'ord_1', clientId: 'cli_erased', customerEmail: 'ada@example.com', note: 'Ada' };
const payloadOf = (eventId: string): string =>
  JSON.stringify({
    event: 'order.created',
    event_id: eventId,
    created_at: '2026-01-01T00:00:00.000Z',
    data: personal,
  });

async function anEndpointIn(s: Storage): Promise<string> {
  const endpoint = anEndpoint();
  await s.webhooks.endpoints.insert(endpoint);
  return endpoint.id;
}

export function erasureContract(storage: () => Storage): void {
  it('makes tombstones of the erased client’s events, keeping ids, types and times, and no other client’s', async () => {
    const s = storage();
    const mine = [
      anEvent({ owner: 'cli_erased', data: personal }),
      anEvent({ owner: 'cli_erased', data: personal }),
    ];
    const other = anEvent({ owner: 'cli_other', data: personal });
    const unowned = anEvent({ data: personal });
    for (const e of [mine[0]!, other, unowned, mine[1]!]) await s.outbox.append(e);
    await s.outbox.markRelayed([mine[0]!.id]); // relayed: still kept for the feed, and erased there too
    expect(await s.outbox.erase(ERASURE)).toBe(2);
    const { events } = await s.outbox.read({ limit: 100 });
    const byId = new Map(events.map(({ event }) => [event.id, event]));
    for (const event of mine)
      expect(byId.get(event.id)).toMatchObject({
        id: event.id,
        type: event.type,
        occurredAt: event.occurredAt,
        owner: 'cli_erased',
        data: { id: 'ord_1', clientId: 'cli_erased' },
        redacted: true,
      });
    expect(Object.keys(byId.get(mine[0]!.id)!.data)).toEqual(['id', 'clientId']);
    // What waits for the relay is handed out as the tombstone too.
    const claimed = await s.outbox.claim({ now: NOW, limit: 100, leaseMs: 1000 });
    expect(claimed.find((e) => e.id === mine[1]!.id)).toEqual(byId.get(mine[1]!.id));
    expect(byId.get(other.id)).toEqual(other);
    expect(byId.get(unowned.id)).toEqual(unowned);
    expect(await s.outbox.erase(ERASURE)).toBe(0);
  });

  it('erases an event appended in the same transaction, and takes the erasure back with a rollback', async () => {
    const s = storage();
    const kept = anEvent({ owner: 'cli_erased', data: personal });
    await s.outbox.append(kept);
    await expect(
      s.transaction(async (tx) => {
        await tx.outbox.erase(ERASURE);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const deleted = anEvent({
      type: 'client.deleted',
      owner: 'cli_erased',
      data: { id: 'cli_erased', email: 'ada@example.com' },
    });
    await s.transaction(async (tx) => {
      await tx.outbox.append(deleted);
      await tx.outbox.erase({ ...ERASURE, keep: ['id'] });
    });
    const events = await s.outbox.claim({ now: NOW, limit: 100, leaseMs: 1000 });
    expect(events.find((e) => e.id === deleted.id)).toMatchObject({
      data: { id: 'cli_erased' },
      redacted: true,
    });
    expect(events.find((e) => e.id === kept.id)?.data).toEqual({ id: 'ord_1' });
  });

  it('makes tombstones of the erased client’s deliveries, pending or finished, and of their attempts’ texts', async () => {
    const s = storage();
    const endpointId = await anEndpointIn(s);
    const pending = aDelivery(endpointId, {
      owner: 'cli_erased',
      payload: payloadOf('evt_e1'),
      eventId: 'evt_e1',
    });
    const dead = aDelivery(endpointId, {
      owner: 'cli_erased',
      payload: payloadOf('evt_e2'),
      eventId: 'evt_e2',
      status: 'dead',
      nextAttemptAt: null,
      attempts: 1,
      lastStatusCode: 500,
      lastError: 'Received ada@example.com',
    });
    const other = aDelivery(endpointId, { owner: 'cli_other', payload: payloadOf('evt_o') });
    const unowned = aDelivery(endpointId, { payload: payloadOf('evt_u') });
    for (const d of [pending, dead, other, unowned]) await s.webhooks.deliveries.createIfAbsent(d);
    const attempt = anAttempt(dead, { responseExcerpt: 'Thanks, ada@example.com', error: 'ada@example.com' });
    const otherAttempt = anAttempt(other, { responseExcerpt: 'ada@example.com' });
    await s.webhooks.attempts.insertMany([attempt, otherAttempt]);

    expect(await s.webhooks.deliveries.erase(ERASURE)).toBe(2);
    const tombstone = await s.webhooks.deliveries.get(dead.id);
    expect(tombstone).toEqual({
      ...dead,
      payload: erasedPayload(dead.payload, ERASURE.keep),
      lastError: null,
      erasedAt: ERASURE.at,
    });
    expect(JSON.parse(tombstone!.payload)).toEqual({
      event: 'order.created',
      event_id: 'evt_e2',
      created_at: '2026-01-01T00:00:00.000Z',
      data: { id: 'ord_1', clientId: 'cli_erased' },
      redacted: true,
    });
    expect((await s.webhooks.deliveries.get(pending.id))?.payload).toBe(
      erasedPayload(pending.payload, ERASURE.keep),
    );
    expect(await s.webhooks.attempts.listByDelivery(dead.id)).toEqual([
      { ...attempt, responseExcerpt: null, error: null, requestHeaders: null, responseHeaders: null },
    ]);
    expect(await s.webhooks.deliveries.get(other.id)).toEqual(other);
    expect(await s.webhooks.deliveries.get(unowned.id)).toEqual(unowned);
    expect(await s.webhooks.attempts.listByDelivery(other.id)).toEqual([otherAttempt]);
    expect(await s.webhooks.deliveries.erase(ERASURE)).toBe(0);
  });

  it('stores no texts of an attempt that ends after its delivery was erased', async () => {
    const s = storage();
    const endpointId = await anEndpointIn(s);
    const failing = aDelivery(endpointId, { owner: 'cli_erased', payload: payloadOf('evt_f') });
    const passing = aDelivery(endpointId, { owner: 'cli_erased', payload: payloadOf('evt_p') });
    for (const d of [failing, passing]) await s.webhooks.deliveries.createIfAbsent(d);
    const claimed = await s.webhooks.deliveries.claimDue({
      now: NOW,
      limit: 10,
      leaseMs: 30_000,
      workerId: 'worker-a',
      maxPerEndpoint: 10,
    });
    expect(claimed).toHaveLength(2);
    await s.webhooks.deliveries.erase(ERASURE);
    const lease = { workerId: 'worker-a', attempts: 0 };
    const outcome = (ok: boolean) => ({
      status: ok ? ('succeeded' as const) : ('pending' as const),
      attempts: 1,
      nextAttemptAt: ok ? null : ms(600),
      lastStatusCode: ok ? 200 : 500,
      lastError: ok ? null : 'said ada@example.com',
      at: ms(501),
    });
    expect(
      await s.webhooks.deliveries.finishMany([{ id: failing.id, lease, outcome: outcome(false) }]),
    ).toEqual([failing.id]);
    await s.webhooks.attempts.insert(anAttempt(failing, { responseExcerpt: 'ada@example.com' }));
    const succeeded = anAttempt(passing, {
      succeeded: true,
      statusCode: 200,
      responseExcerpt: 'ada@example.com',
    });
    expect(
      await s.webhooks.deliveries.finishSucceeded(
        [{ id: passing.id, lease, outcome: outcome(true) }],
        [succeeded],
      ),
    ).toEqual([passing.id]);
    expect(await s.webhooks.deliveries.get(failing.id)).toMatchObject({
      lastError: null,
      lastStatusCode: 500,
    });
    for (const id of [failing.id, passing.id]) {
      const [stored] = await s.webhooks.attempts.listByDelivery(id);
      expect(stored).toMatchObject({
        responseExcerpt: null,
        error: null,
        requestHeaders: null,
        responseHeaders: null,
      });
    }
  });

  it('refuses a delivery made from a copy of an event read before its client was erased', async () => {
    const s = storage();
    const endpointId = await anEndpointIn(s);
    const event = anEvent({ owner: 'cli_erased', data: personal });
    await s.outbox.append(event);
    await s.outbox.claim({ now: NOW, limit: 100, leaseMs: 1000 }); // a relay's copy, read before
    await s.outbox.erase(ERASURE);
    const stale = aDelivery(endpointId, {
      eventId: event.id,
      owner: 'cli_erased',
      payload: payloadOf(event.id),
    });
    expect(await s.webhooks.deliveries.createManyIfAbsent([stale])).toBe(0);
    expect(await s.webhooks.deliveries.createIfAbsent(stale)).toBe(false);
    expect(await s.webhooks.deliveries.get(stale.id)).toBeNull();
    // Made from the tombstone (the relay read it after the erasure), it is a tombstone too, and is kept.
    const fromTombstone = {
      ...stale,
      payload: erasedPayload(stale.payload, ERASURE.keep),
      erasedAt: ERASURE.at,
    };
    expect(await s.webhooks.deliveries.createManyIfAbsent([fromTombstone])).toBe(1);
    expect(await s.webhooks.deliveries.get(stale.id)).toEqual(fromTombstone);
  });
}

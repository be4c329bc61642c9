import { expect, it } from 'vitest';
import type { Storage, WebhookClaimOptions } from '../../core/storage/index.js';
import { ms } from './fixtures.js';
import { aDelivery, anAttempt, anEndpoint } from './webhook-fixtures.js';

const NOW = Date.UTC(2026, 0, 1);
const claim = (o: Partial<WebhookClaimOptions> = {}): WebhookClaimOptions => ({
  now: NOW,
  limit: 10,
  leaseMs: 30_000,
  workerId: 'worker-a',
  maxPerEndpoint: 100,
  ...o,
});
const page = { offset: 0, limit: 100 };

async function withEndpoint(s: Storage): Promise<string> {
  const endpoint = anEndpoint();
  await s.webhooks.endpoints.insert(endpoint);
  return endpoint.id;
}

export function webhookDeliveryContract(storage: () => Storage): void {
  it('creates one delivery per (event_id, endpoint), however often the fan-out runs', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const delivery = aDelivery(endpointId);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        s.webhooks.deliveries.createIfAbsent({ ...delivery, id: `${delivery.id}_${i}` }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await s.webhooks.deliveries.list({ endpointId }, page)).total).toBe(1);
  });

  it('creates a batch of deliveries in one call, skipping those that exist, and counts the new ones', async () => {
    const s = storage();
    const endpoints = [await withEndpoint(s), await withEndpoint(s), await withEndpoint(s)];
    const first = aDelivery(endpoints[0]!);
    await s.webhooks.deliveries.createIfAbsent(first);
    const batch = endpoints.map((id) => aDelivery(id, { eventId: first.eventId }));
    expect(await s.webhooks.deliveries.createManyIfAbsent(batch)).toBe(2);
    expect(await s.webhooks.deliveries.createManyIfAbsent(batch)).toBe(0);
    const stored = await s.webhooks.deliveries.list({}, page);
    expect(stored.items.map((d) => d.endpointId).sort()).toEqual([...endpoints].sort());
    expect(await s.webhooks.deliveries.createManyIfAbsent([])).toBe(0);
  });

  it('keeps a delivery’s traceparent, and counts the pending ones', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const before = await s.webhooks.deliveries.countPending();
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const [traced, plain] = [aDelivery(endpointId, { traceparent }), aDelivery(endpointId)];
    await s.webhooks.deliveries.createManyIfAbsent([traced]);
    await s.webhooks.deliveries.createIfAbsent(plain);
    expect((await s.webhooks.deliveries.get(traced.id))?.traceparent).toBe(traceparent);
    expect((await s.webhooks.deliveries.get(plain.id))?.traceparent ?? null).toBeNull();
    expect(await s.webhooks.deliveries.countPending()).toBe(before + 2);
    const [leased] = await s.webhooks.deliveries.claimDue(claim({ limit: 1 }));
    expect(leased!.traceparent ?? null).toBe(leased!.id === traced.id ? traceparent : null);
    await s.webhooks.deliveries.finish(
      leased!.id,
      { workerId: 'worker-a', attempts: leased!.attempts },
      {
        status: 'succeeded',
        attempts: 1,
        nextAttemptAt: null,
        lastStatusCode: 200,
        lastError: null,
        at: ms(1),
      },
    );
    expect(await s.webhooks.deliveries.countPending()).toBe(before + 1);
  });

  it('refuses a batch that reuses the id of another delivery, and writes none of it', async () => {
    const s = storage();
    const [a, b] = [await withEndpoint(s), await withEndpoint(s)];
    const existing = aDelivery(a);
    await s.webhooks.deliveries.createIfAbsent(existing);
    const fresh = aDelivery(b);
    const reused = aDelivery(b, { id: existing.id });
    await expect(s.webhooks.deliveries.createManyIfAbsent([fresh, reused])).rejects.toMatchObject({
      code: 'conflict',
    });
    expect((await s.webhooks.deliveries.list({}, page)).items.map((d) => d.id)).toEqual([existing.id]);
  });

  it('hands out only deliveries that are due, oldest due first, and leases them', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const later = aDelivery(endpointId, { nextAttemptAt: ms(60) });
    const second = aDelivery(endpointId, { nextAttemptAt: ms(-5) });
    const first = aDelivery(endpointId, { nextAttemptAt: ms(-10) });
    for (const d of [later, second, first]) await s.webhooks.deliveries.createIfAbsent(d);
    const claimed = await s.webhooks.deliveries.claimDue(claim());
    expect(claimed.map((d) => d.id)).toEqual([first.id, second.id]);
    expect(claimed[0]).toMatchObject({ leasedBy: 'worker-a', leaseUntil: ms(30) });
    expect(await s.webhooks.deliveries.claimDue(claim({ workerId: 'worker-b' }))).toEqual([]);
    expect((await s.webhooks.deliveries.claimDue(claim({ now: NOW + 60_000 }))).map((d) => d.id)).toContain(
      later.id,
    );
  });

  it('never gives the same delivery to two concurrent claimers', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const d = aDelivery(endpointId);
      ids.push(d.id);
      await s.webhooks.deliveries.createIfAbsent(d);
    }
    const batches = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        s.webhooks.deliveries.claimDue(claim({ limit: 7, workerId: `w${i}` })),
      ),
    );
    const claimed = batches.flat().map((d) => d.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual(ids.sort());
  });

  it('lets another worker claim a delivery once its lease has expired', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const delivery = aDelivery(endpointId);
    await s.webhooks.deliveries.createIfAbsent(delivery);
    await s.webhooks.deliveries.claimDue(claim({ leaseMs: 1000 }));
    expect(await s.webhooks.deliveries.claimDue(claim({ now: NOW + 999, workerId: 'b' }))).toEqual([]);
    const [taken] = await s.webhooks.deliveries.claimDue(claim({ now: NOW + 1000, workerId: 'b' }));
    expect(taken).toMatchObject({ id: delivery.id, leasedBy: 'b' });
    // The first worker lost its lease: its late result must not overwrite the new holder's.
    const outcome = {
      status: 'succeeded',
      attempts: 1,
      nextAttemptAt: null,
      lastStatusCode: 200,
      lastError: null,
      at: ms(2),
    } as const;
    expect(
      await s.webhooks.deliveries.finish(delivery.id, { workerId: 'worker-a', attempts: 0 }, outcome),
    ).toBe(false);
    expect(await s.webhooks.deliveries.finish(delivery.id, { workerId: 'b', attempts: 0 }, outcome)).toBe(
      true,
    );
    expect(await s.webhooks.deliveries.get(delivery.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      leasedBy: null,
      leaseUntil: null,
      lastStatusCode: 200,
    });
  });

  it('leases at most maxPerEndpoint deliveries of one endpoint at a time, across workers', async () => {
    const s = storage();
    const slow = await withEndpoint(s);
    const fast = await withEndpoint(s);
    for (let i = 0; i < 5; i++)
      await s.webhooks.deliveries.createIfAbsent(aDelivery(slow, { nextAttemptAt: ms(-10) }));
    await s.webhooks.deliveries.createIfAbsent(aDelivery(fast));
    const a = await s.webhooks.deliveries.claimDue(claim({ maxPerEndpoint: 2 }));
    expect(a.filter((d) => d.endpointId === slow)).toHaveLength(2);
    expect(a.filter((d) => d.endpointId === fast)).toHaveLength(1);
    const b = await s.webhooks.deliveries.claimDue(claim({ maxPerEndpoint: 2, workerId: 'b' }));
    expect(b).toEqual([]);
  });

  it('lets a per-endpoint cap replace maxPerEndpoint, wider or narrower', async () => {
    const s = storage();
    const wide = await withEndpoint(s);
    const narrow = await withEndpoint(s);
    for (let i = 0; i < 6; i++) {
      await s.webhooks.deliveries.createIfAbsent(aDelivery(wide, { nextAttemptAt: ms(-10) }));
      await s.webhooks.deliveries.createIfAbsent(aDelivery(narrow, { nextAttemptAt: ms(-10) }));
    }
    const endpointLimits = new Map([
      [wide, 5],
      [narrow, 1],
    ]);
    const a = await s.webhooks.deliveries.claimDue(claim({ maxPerEndpoint: 2, endpointLimits }));
    expect(a.filter((d) => d.endpointId === wide)).toHaveLength(5);
    expect(a.filter((d) => d.endpointId === narrow)).toHaveLength(1);
    // Without the caps, the default applies to leases already held: the narrow one may take one more.
    const b = await s.webhooks.deliveries.claimDue(claim({ maxPerEndpoint: 2, workerId: 'b' }));
    expect(b.map((d) => d.endpointId)).toEqual([narrow]);
  });

  it('finds an endpoint whose deliveries are due behind another endpoint’s long backlog', async () => {
    const s = storage();
    const [busy, quiet] = [await withEndpoint(s), await withEndpoint(s)];
    const backlog = Array.from({ length: 300 }, (_, i) => aDelivery(busy, { nextAttemptAt: ms(-1_000 + i) }));
    await s.webhooks.deliveries.createManyIfAbsent(backlog);
    await s.webhooks.deliveries.createIfAbsent(aDelivery(quiet, { nextAttemptAt: ms(-1) }));
    const claimed = await s.webhooks.deliveries.claimDue(claim({ maxPerEndpoint: 4, limit: 10 }));
    expect(claimed.filter((d) => d.endpointId === busy)).toHaveLength(4);
    expect(claimed.filter((d) => d.endpointId === quiet)).toHaveLength(1);
  });

  it('does not let endpoints at their cap take the slots of a claim from the others', async () => {
    const s = storage();
    const busy = [await withEndpoint(s), await withEndpoint(s), await withEndpoint(s)];
    const idle = await withEndpoint(s);
    // The busy endpoints hold the oldest due deliveries, and each has its one allowed lease out already.
    for (const id of busy) {
      for (let i = 0; i < 3; i++)
        await s.webhooks.deliveries.createIfAbsent(aDelivery(id, { nextAttemptAt: ms(-60) }));
    }
    await s.webhooks.deliveries.createIfAbsent(aDelivery(idle, { nextAttemptAt: ms(-1) }));
    const first = await s.webhooks.deliveries.claimDue(claim({ maxPerEndpoint: 1, limit: 3 }));
    expect(new Set(first.map((d) => d.endpointId))).toEqual(new Set(busy));
    const next = await s.webhooks.deliveries.claimDue(claim({ maxPerEndpoint: 1, limit: 3, workerId: 'b' }));
    expect(next.map((d) => d.endpointId)).toEqual([idle]);
  });

  it('schedules the next attempt and hands the delivery out again when it is due', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const delivery = aDelivery(endpointId);
    await s.webhooks.deliveries.createIfAbsent(delivery);
    await s.webhooks.deliveries.claimDue(claim());
    await s.webhooks.deliveries.finish(
      delivery.id,
      { workerId: 'worker-a', attempts: 0 },
      {
        status: 'pending',
        attempts: 1,
        nextAttemptAt: ms(5),
        lastStatusCode: 503,
        lastError: null,
        at: ms(0),
      },
    );
    expect(await s.webhooks.deliveries.claimDue(claim({ now: NOW + 4999 }))).toEqual([]);
    const [again] = await s.webhooks.deliveries.claimDue(claim({ now: NOW + 5000 }));
    expect(again).toMatchObject({ id: delivery.id, attempts: 1, lastStatusCode: 503 });
  });

  it('makes a released delivery claimable at once, by its worker only', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const delivery = aDelivery(endpointId);
    await s.webhooks.deliveries.createIfAbsent(delivery);
    await s.webhooks.deliveries.claimDue(claim());
    expect(await s.webhooks.deliveries.release(delivery.id, 'someone-else')).toBe(false);
    expect(await s.webhooks.deliveries.release(delivery.id, 'worker-a')).toBe(true);
    expect(await s.webhooks.deliveries.claimDue(claim({ workerId: 'b' }))).toHaveLength(1);
  });

  it('lists deliveries newest first, filtered by endpoint, status and creation time', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const other = await withEndpoint(s);
    const old = aDelivery(endpointId, { createdAt: ms(100), status: 'dead', nextAttemptAt: null });
    const recent = aDelivery(endpointId, { createdAt: ms(200) });
    await s.webhooks.deliveries.createIfAbsent(old);
    await s.webhooks.deliveries.createIfAbsent(recent);
    await s.webhooks.deliveries.createIfAbsent(aDelivery(other));
    expect((await s.webhooks.deliveries.list({ endpointId }, page)).items).toEqual([recent, old]);
    expect((await s.webhooks.deliveries.list({ endpointId, status: 'dead' }, page)).items).toEqual([old]);
    const range = { endpointId, createdFrom: ms(150), createdBefore: ms(250) };
    expect(await s.webhooks.deliveries.list(range, page)).toEqual({ items: [recent], total: 1 });
  });

  it('lists and re-queues the deliveries of one event type', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const finished = { status: 'dead', nextAttemptAt: null } as const;
    const paid = aDelivery(endpointId, { eventType: 'order.paid', createdAt: ms(100), ...finished });
    const created = aDelivery(endpointId, { eventType: 'order.created', createdAt: ms(200), ...finished });
    const paidAgain = aDelivery(endpointId, { eventType: 'order.paid', createdAt: ms(300) });
    for (const d of [paid, created, paidAgain]) await s.webhooks.deliveries.createIfAbsent(d);
    expect(await s.webhooks.deliveries.list({ endpointId, eventType: 'order.paid' }, page)).toEqual({
      items: [paidAgain, paid],
      total: 2,
    });
    const deadPaid = { eventType: 'order.paid', status: 'dead' } as const;
    expect((await s.webhooks.deliveries.list(deadPaid, page)).items).toEqual([paid]);
    expect((await s.webhooks.deliveries.list({ eventType: 'order.*' }, page)).total).toBe(0);
    expect(await s.webhooks.deliveries.requeue({ endpointId, eventType: 'order.created' }, NOW)).toBe(1);
    expect(await s.webhooks.deliveries.get(paid.id)).toEqual(paid);
    expect(await s.webhooks.deliveries.get(created.id)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('re-queues finished deliveries with a fresh schedule and leaves pending ones alone', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const dead = aDelivery(endpointId, {
      status: 'dead',
      attempts: 8,
      nextAttemptAt: null,
      createdAt: ms(100),
    });
    const done = aDelivery(endpointId, {
      status: 'succeeded',
      attempts: 1,
      nextAttemptAt: null,
      createdAt: ms(110),
    });
    const pending = aDelivery(endpointId, { attempts: 2, nextAttemptAt: ms(500) });
    for (const d of [dead, done, pending]) await s.webhooks.deliveries.createIfAbsent(d);
    expect(await s.webhooks.deliveries.requeue({ endpointId, status: 'dead' }, NOW)).toBe(1);
    expect(await s.webhooks.deliveries.get(dead.id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      nextAttemptAt: ms(0),
    });
    expect(await s.webhooks.deliveries.requeue({ ids: [done.id, pending.id] }, NOW)).toBe(1);
    expect(await s.webhooks.deliveries.get(pending.id)).toEqual(pending);
    const claimed = await s.webhooks.deliveries.claimDue(claim());
    expect(claimed.map((d) => d.id).sort()).toEqual([dead.id, done.id].sort());
  });

  it('makes pending deliveries that failed due now, their schedule kept, and leaves the others alone', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const waiting = aDelivery(endpointId, { attempts: 2, nextAttemptAt: ms(500), lastStatusCode: 500 });
    const fresh = aDelivery(endpointId, { nextAttemptAt: ms(400) });
    const dead = aDelivery(endpointId, { status: 'dead', attempts: 8, nextAttemptAt: null });
    const leased = aDelivery(endpointId, { attempts: 1, nextAttemptAt: ms(0) });
    const elsewhere = aDelivery(await withEndpoint(s), { attempts: 1, nextAttemptAt: ms(500) });
    for (const d of [waiting, fresh, dead, leased, elsewhere]) await s.webhooks.deliveries.createIfAbsent(d);
    const [held] = await s.webhooks.deliveries.claimDue(claim({ limit: 1 }));
    expect(held!.id).toBe(leased.id);
    expect(await s.webhooks.deliveries.expedite({ endpointId }, NOW + 1)).toBe(1);
    expect(await s.webhooks.deliveries.get(waiting.id)).toMatchObject({
      status: 'pending',
      attempts: 2,
      nextAttemptAt: NOW + 1,
      lastStatusCode: 500,
    });
    expect(await s.webhooks.deliveries.get(fresh.id)).toEqual(fresh);
    expect(await s.webhooks.deliveries.get(dead.id)).toEqual(dead);
    expect((await s.webhooks.deliveries.get(leased.id))!.leasedBy).toBe('worker-a');
    expect(await s.webhooks.deliveries.get(elsewhere.id)).toEqual(elsewhere);
    expect(await s.webhooks.deliveries.expedite({ ids: [elsewhere.id] }, NOW + 2)).toBe(1);
    const due = await s.webhooks.deliveries.claimDue(claim({ now: NOW + 2, workerId: 'b' }));
    expect(due.map((d) => d.id).sort()).toEqual([waiting.id, elsewhere.id].sort());
  });

  it('finds the deliveries of an event by its id', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const one = aDelivery(endpointId);
    const other = aDelivery(endpointId);
    for (const d of [one, other]) await s.webhooks.deliveries.createIfAbsent(d);
    expect(await s.webhooks.deliveries.list({ endpointId, eventId: one.eventId }, page)).toEqual({
      items: [one],
      total: 1,
    });
    expect((await s.webhooks.deliveries.list({ eventId: 'evt_nobody' }, page)).total).toBe(0);
  });

  it('finishes many deliveries in one write, only those whose lease is still held', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    for (let i = 0; i < 4; i++) await s.webhooks.deliveries.createIfAbsent(aDelivery(endpointId));
    const claimed = await s.webhooks.deliveries.claimDue(claim({ leaseMs: 1_000 }));
    expect(claimed).toHaveLength(4);
    // The last one's lease ran out and another worker took it.
    const [lost] = await s.webhooks.deliveries.claimDue(claim({ now: NOW + 1_000, workerId: 'b', limit: 1 }));
    expect(lost!.id).toBe(claimed[0]!.id);
    const outcome = (status: 'succeeded' | 'pending') => ({
      status,
      attempts: 1,
      nextAttemptAt: status === 'pending' ? ms(300) : null,
      lastStatusCode: status === 'pending' ? 503 : 200,
      lastError: status === 'pending' ? 'HTTP 503' : null,
      at: ms(2),
    });
    const finishes = claimed.map((d, i) => ({
      id: d.id,
      lease: { workerId: 'worker-a', attempts: 0 },
      outcome: outcome(i === 1 ? 'pending' : 'succeeded'),
    }));
    const written = await s.webhooks.deliveries.finishMany(finishes);
    expect(written.sort()).toEqual(
      claimed
        .map((d) => d.id)
        .filter((id) => id !== lost!.id)
        .sort(),
    );
    expect(await s.webhooks.deliveries.finishMany([])).toEqual([]);
    expect(await s.webhooks.deliveries.get(claimed[1]!.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: 503,
      leasedBy: null,
    });
    expect(await s.webhooks.deliveries.get(claimed[2]!.id)).toMatchObject({ status: 'succeeded' });
    expect(await s.webhooks.deliveries.get(lost!.id)).toMatchObject({ leasedBy: 'b', attempts: 0 });
  });

  it('finishes succeeded deliveries with their attempts and ends their endpoint’s failing run in one write', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    await s.webhooks.endpoints.recordOutcome(endpointId, { ok: false, at: ms(1) });
    for (let i = 0; i < 3; i++) await s.webhooks.deliveries.createIfAbsent(aDelivery(endpointId));
    const claimed = await s.webhooks.deliveries.claimDue(claim({ leaseMs: 1_000 }));
    const [lost] = await s.webhooks.deliveries.claimDue(claim({ now: NOW + 1_000, workerId: 'b', limit: 1 }));
    const outcome = { status: 'succeeded' as const, attempts: 1, nextAttemptAt: null, lastStatusCode: 200 };
    const finishes = claimed.map((d) => ({
      id: d.id,
      lease: { workerId: 'worker-a', attempts: 0 },
      outcome: { ...outcome, lastError: null, at: ms(2) },
    }));
    const succeeded = { succeeded: true, statusCode: 200, responseExcerpt: 'ok', responseHeaders: null };
    const attempts = claimed.map((d) => anAttempt(d, { ...succeeded, startedAt: ms(2) }));
    const written = await s.webhooks.deliveries.finishSucceeded(finishes, attempts);
    const kept = claimed.filter((d) => d.id !== lost!.id);
    expect(written).toEqual(kept.map((d) => d.id));
    for (const d of kept) {
      expect(await s.webhooks.deliveries.get(d.id)).toMatchObject({ status: 'succeeded', leasedBy: null });
      expect(await s.webhooks.attempts.listByDelivery(d.id)).toEqual([
        attempts.find((a) => a.deliveryId === d.id),
      ]);
    }
    // The lease was lost: its outcome and attempt belong to the worker holding it now.
    expect(await s.webhooks.attempts.listByDelivery(lost!.id)).toEqual([]);
    expect(await s.webhooks.deliveries.get(lost!.id)).toMatchObject({ leasedBy: 'b', attempts: 0 });
    expect(await s.webhooks.endpoints.get(endpointId)).toMatchObject({ failingSince: null });
    expect(await s.webhooks.deliveries.finishSucceeded([], [])).toEqual([]);
  });

  it('refuses a failed attempt in finishSucceeded and writes nothing', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    await s.webhooks.deliveries.createIfAbsent(aDelivery(endpointId));
    const [d] = await s.webhooks.deliveries.claimDue(claim());
    const finish = {
      id: d!.id,
      lease: { workerId: 'worker-a', attempts: 0 },
      outcome: { status: 'pending' as const, attempts: 1, nextAttemptAt: ms(300), lastStatusCode: 503 },
    };
    await expect(
      s.webhooks.deliveries.finishSucceeded(
        [{ ...finish, outcome: { ...finish.outcome, lastError: 'HTTP 503', at: ms(2) } }],
        [anAttempt(d!)],
      ),
    ).rejects.toThrow(/succeeded attempts only/);
    expect(await s.webhooks.deliveries.get(d!.id)).toMatchObject({ leasedBy: 'worker-a', attempts: 0 });
    expect(await s.webhooks.attempts.listByDelivery(d!.id)).toEqual([]);
  });
}

export function webhookPruneContract(storage: () => Storage): void {
  it('prunes finished deliveries older than the cut-off, with their attempts, and never pending ones', async () => {
    const s = storage();
    const endpointId = await withEndpoint(s);
    const oldDead = aDelivery(endpointId, { status: 'dead', nextAttemptAt: null, updatedAt: ms(10) });
    const oldDone = aDelivery(endpointId, { status: 'succeeded', nextAttemptAt: null, updatedAt: ms(11) });
    const recentDone = aDelivery(endpointId, {
      status: 'succeeded',
      nextAttemptAt: null,
      updatedAt: ms(100),
    });
    const oldPending = aDelivery(endpointId, { status: 'pending', nextAttemptAt: ms(5), updatedAt: ms(5) });
    for (const d of [oldDead, oldDone, recentDone, oldPending]) await s.webhooks.deliveries.createIfAbsent(d);
    await s.webhooks.attempts.insert({
      id: `wha_prune_${oldDead.id}`,
      deliveryId: oldDead.id,
      endpointId,
      number: 1,
      startedAt: ms(10),
      durationMs: 5,
      statusCode: 500,
      responseExcerpt: 'no',
      error: null,
      succeeded: false,
      requestHeaders: null,
      responseHeaders: null,
    });
    expect(await s.webhooks.deliveries.prune(ms(50))).toBe(2);
    expect(await s.webhooks.deliveries.get(oldDead.id)).toBeNull();
    expect(await s.webhooks.deliveries.get(oldDone.id)).toBeNull();
    expect(await s.webhooks.attempts.listByDelivery(oldDead.id)).toEqual([]);
    expect(await s.webhooks.attempts.listFailures(endpointId, 10)).toEqual([]);
    expect(await s.webhooks.deliveries.get(recentDone.id)).toEqual(recentDone);
    expect(await s.webhooks.deliveries.get(oldPending.id)).toEqual(oldPending);
    expect(await s.webhooks.deliveries.prune(ms(50))).toBe(0);
    // The (event_id, endpoint) slot is free again only because the old delivery is gone for good.
    expect(await s.webhooks.deliveries.createIfAbsent({ ...oldDead, id: `${oldDead.id}_again` })).toBe(true);
  });
}

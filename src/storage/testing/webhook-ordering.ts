import { expect, it } from 'vitest';
import type {
  Storage,
  WebhookClaimOptions,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
} from '../../core/storage/index.js';
import { anEvent, ms } from './fixtures.js';
import { aDelivery, anEndpoint } from './webhook-fixtures.js';

const NOW = Date.UTC(2026, 0, 1);
const claim = (o: Partial<WebhookClaimOptions> = {}): WebhookClaimOptions => ({
  now: NOW,
  limit: 10,
  leaseMs: 30_000,
  workerId: 'worker-a',
  maxPerEndpoint: 100,
  ...o,
});
let subjects = 0;
/** A subject no other test (nor another run on the same database) uses. */
const aSubject = (): string => `ord_contract_${Date.now().toString(36)}_${++subjects}`;

async function endpoint(s: Storage, overrides: Partial<WebhookEndpointRecord> = {}) {
  const e = anEndpoint({ ordering: 'subject', ...overrides });
  await s.webhooks.endpoints.insert(e);
  return e;
}

/** Deliveries of one subject's events 1…n to the endpoint, all due, the later ones made first. */
async function ofSubject(s: Storage, endpointId: string, subject: string, n: number) {
  const made: WebhookDeliveryRecord[] = [];
  for (let sequence = n; sequence >= 1; sequence--) {
    const d = aDelivery(endpointId, { subject, sequence, nextAttemptAt: ms(-sequence) });
    await s.webhooks.deliveries.createIfAbsent(d);
    made.unshift(d);
  }
  return made;
}

const ids = (ds: readonly WebhookDeliveryRecord[]): string[] => ds.map((d) => d.id).sort();

/** Ends a leased delivery the way the dispatcher does. */
async function finish(s: Storage, d: WebhookDeliveryRecord, status: 'succeeded' | 'pending' | 'dead') {
  const written = await s.webhooks.deliveries.finish(
    d.id,
    { workerId: d.leasedBy!, attempts: d.attempts },
    {
      status,
      attempts: d.attempts + 1,
      nextAttemptAt: status === 'pending' ? NOW + 60_000 : null,
      lastStatusCode: status === 'succeeded' ? 200 : 503,
      lastError: status === 'succeeded' ? null : 'HTTP 503',
      at: NOW,
    },
  );
  expect(written).toBe(true);
}

export function webhookOrderingContract(storage: () => Storage): void {
  it('keeps an endpoint’s ordering, none unless asked for', async () => {
    const s = storage();
    const ordered = await endpoint(s);
    const plain = await endpoint(s, { ordering: 'none' });
    expect((await s.webhooks.endpoints.get(ordered.id))?.ordering).toBe('subject');
    expect((await s.webhooks.endpoints.get(plain.id))?.ordering).toBe('none');
    await s.webhooks.endpoints.update({ ...ordered, ordering: 'none', version: 2 }, 1);
    expect((await s.webhooks.endpoints.get(ordered.id))?.ordering).toBe('none');
  });

  it('keeps a delivery’s subject and sequence', async () => {
    const s = storage();
    const e = await endpoint(s);
    const [d] = await ofSubject(s, e.id, aSubject(), 1);
    expect(await s.webhooks.deliveries.get(d!.id)).toMatchObject({ subject: d!.subject, sequence: 1 });
  });

  it('leases one delivery of a subject at a time on an ordered endpoint, the lowest sequence first', async () => {
    const s = storage();
    const e = await endpoint(s);
    const [a1, a2, a3] = await ofSubject(s, e.id, aSubject(), 3);
    const [b1] = await ofSubject(s, e.id, aSubject(), 1);
    const first = await s.webhooks.deliveries.claimDue(claim());
    expect(ids(first)).toEqual(ids([a1!, b1!]));
    // Leased, then failed and waiting for a retry: the later ones wait all along.
    expect(await s.webhooks.deliveries.claimDue(claim({ workerId: 'b' }))).toEqual([]);
    await finish(s, first.find((d) => d.id === a1!.id)!, 'pending');
    await finish(s, first.find((d) => d.id === b1!.id)!, 'succeeded');
    expect(await s.webhooks.deliveries.claimDue(claim({ workerId: 'b' }))).toEqual([]);
    // Its retry comes due: it is taken again, still alone.
    const retried = await s.webhooks.deliveries.claimDue(claim({ now: NOW + 60_000, workerId: 'c' }));
    expect(ids(retried)).toEqual([a1!.id]);
    await finish(s, retried[0]!, 'succeeded');
    const next = await s.webhooks.deliveries.claimDue(claim({ now: NOW + 60_000, workerId: 'c' }));
    expect(ids(next)).toEqual([a2!.id]);
    await finish(s, next[0]!, 'dead');
    // A dead delivery lets the next go too.
    const last = await s.webhooks.deliveries.claimDue(claim({ now: NOW + 60_000, workerId: 'c' }));
    expect(ids(last)).toEqual([a3!.id]);
  });

  it('does not let an ordered endpoint’s held deliveries empty a claim of one', async () => {
    const s = storage();
    const e = await endpoint(s);
    const [a1] = await ofSubject(s, e.id, aSubject(), 5);
    const other = await endpoint(s, { ordering: 'none' });
    const due = aDelivery(other.id, { nextAttemptAt: ms(0) });
    await s.webhooks.deliveries.createIfAbsent(due);
    expect(ids(await s.webhooks.deliveries.claimDue(claim({ limit: 1 })))).toEqual([a1!.id]);
    // The four behind a1 are due longer than the other endpoint's delivery, and held.
    expect(ids(await s.webhooks.deliveries.claimDue(claim({ limit: 1, workerId: 'b' })))).toEqual([due.id]);
    expect(await s.webhooks.deliveries.claimDue(claim({ limit: 1, workerId: 'c' }))).toEqual([]);
  });

  it('leases every due delivery of an unordered endpoint, whatever their subjects', async () => {
    const s = storage();
    const e = await endpoint(s, { ordering: 'none' });
    const made = await ofSubject(s, e.id, aSubject(), 3);
    expect(ids(await s.webhooks.deliveries.claimDue(claim()))).toEqual(ids(made));
  });

  it('lets the waiting deliveries go when the endpoint stops being ordered', async () => {
    const s = storage();
    const e = await endpoint(s);
    const [a1, a2, a3] = await ofSubject(s, e.id, aSubject(), 3);
    expect(ids(await s.webhooks.deliveries.claimDue(claim()))).toEqual([a1!.id]);
    await s.webhooks.endpoints.update({ ...e, ordering: 'none', version: 2 }, 1);
    expect(ids(await s.webhooks.deliveries.claimDue(claim({ workerId: 'b' })))).toEqual(ids([a2!, a3!]));
  });

  it('holds a delivery while an earlier event of its subject is still in the outbox', async () => {
    const s = storage();
    const e = await endpoint(s);
    const subject = aSubject();
    const first = anEvent({ type: 'order.created', subject });
    const second = anEvent({ type: 'order.paid', subject });
    await s.outbox.append(first);
    await s.outbox.append(second);
    // The second event was fanned out first (another relay holds the first): its delivery waits.
    const d2 = aDelivery(e.id, { eventId: second.id, subject, sequence: 2 });
    await s.webhooks.deliveries.createIfAbsent(d2);
    expect(await s.webhooks.deliveries.claimDue(claim())).toEqual([]);
    // The first is relayed (the endpoint has no delivery of it): the second goes.
    await s.outbox.markRelayed([first.id]);
    expect(ids(await s.webhooks.deliveries.claimDue(claim()))).toEqual([d2.id]);
  });

  it('lists held subjects: a first delivery that failed, with others waiting behind it', async () => {
    const s = storage();
    const e = await endpoint(s);
    const held = aSubject();
    const [a1, a2, a3] = await ofSubject(s, e.id, held, 3);
    await ofSubject(s, e.id, aSubject(), 1); // alone: nothing waits
    await ofSubject(s, e.id, aSubject(), 2); // first never attempted: not held yet
    const claimed = await s.webhooks.deliveries.claimDue(claim({ limit: 1 }));
    expect(claimed[0]!.id).toBe(a1!.id);
    expect(await s.webhooks.deliveries.listHeld(e.id, 10)).toEqual([]);
    await finish(s, claimed[0]!, 'pending');
    const found = await s.webhooks.deliveries.listHeld(e.id, 10);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      subject: held,
      waiting: 2,
      since: Math.min(a2!.createdAt, a3!.createdAt),
      blocking: { id: a1!.id, status: 'pending', attempts: 1 },
    });
    expect(await s.webhooks.deliveries.listHeld(e.id, 0)).toEqual([]);
    expect(await s.webhooks.deliveries.listHeld('whe_none', 10)).toEqual([]);
  });

  it('skips a pending delivery: dead with the reason, and the next of its subject goes', async () => {
    const s = storage();
    const e = await endpoint(s);
    const [a1, a2] = await ofSubject(s, e.id, aSubject(), 2);
    const [leased] = await s.webhooks.deliveries.claimDue(claim());
    const skipped = await s.webhooks.deliveries.skip(a1!.id, 'Skipped by an operator.', NOW + 5);
    expect(skipped).toMatchObject({
      id: a1!.id,
      status: 'dead',
      nextAttemptAt: null,
      leasedBy: null,
      lastError: 'Skipped by an operator.',
      updatedAt: NOW + 5,
    });
    // The attempt that was in flight lost its lease: its outcome is not written.
    expect(
      await s.webhooks.deliveries.finish(
        leased!.id,
        { workerId: 'worker-a', attempts: 0 },
        {
          status: 'succeeded',
          attempts: 1,
          nextAttemptAt: null,
          lastStatusCode: 200,
          lastError: null,
          at: NOW,
        },
      ),
    ).toBe(false);
    expect(ids(await s.webhooks.deliveries.claimDue(claim({ workerId: 'b' })))).toEqual([a2!.id]);
    expect(await s.webhooks.deliveries.skip(a1!.id, 'again', NOW)).toBeNull();
    expect(await s.webhooks.deliveries.skip('whd_none', 'none', NOW)).toBeNull();
  });

  it('announces a hold once', async () => {
    const s = storage();
    const e = await endpoint(s);
    const [a1] = await ofSubject(s, e.id, aSubject(), 2);
    expect(await s.webhooks.deliveries.announceHeld(a1!.id, NOW)).toBe(true);
    expect(await s.webhooks.deliveries.announceHeld(a1!.id, NOW + 1)).toBe(false);
    expect((await s.webhooks.deliveries.get(a1!.id))?.heldAnnouncedAt).toBe(NOW);
    await s.webhooks.deliveries.skip(a1!.id, 'skipped', NOW);
    expect(await s.webhooks.deliveries.announceHeld('whd_none', NOW)).toBe(false);
  });
}

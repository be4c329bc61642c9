/**
 * Ordered delivery per subject: an endpoint with `ordering: "subject"` receives one subject's events in
 * sequence order, a later one waiting while an earlier one is retried, other subjects flowing; on
 * memory, and on two switchboards sharing one PostgreSQL database. Real relays, dispatchers and a
 * loopback receiver.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import { createSwitchboard, type Switchboard, trustEveryone } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { until } from '../support/until.js';
import { listen } from './support.js';

const started: Switchboard[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** A switchboard on `storage` with quick relays, polls and retries (1 s, then 1 s again). */
function instance(storage: Storage, heldAfterMs?: number): Switchboard {
  const switchboard = createSwitchboard({
    storage,
    authenticate: trustEveryone,
    relayIntervalMs: 20,
    webhooks: {
      outbound: { allowHttp: true, allowPrivateAddresses: true },
      pollIntervalMs: 20,
      attempts: 3,
      delaysMs: [0, 1_000, 1_000],
      ...(heldAfterMs === undefined ? {} : { heldAfterMs }),
    },
  });
  started.push(switchboard);
  switchboard.start();
  return switchboard;
}

interface Arrival {
  readonly event: string;
  readonly subject: string;
  readonly sequence: number;
  readonly ok: boolean;
  readonly data: Record<string, unknown>;
}

/** A loopback receiver that fails the event `fails(arrival)` says, noting every arrival in order. */
async function receiver(fails: (arrival: Arrival) => boolean = () => false) {
  const arrivals: Arrival[] = [];
  const server = await listen(async (request) => {
    const body = JSON.parse(await request.text()) as Omit<Arrival, 'ok'>;
    const arrival = { ...body, ok: true };
    arrival.ok = !fails(arrival);
    arrivals.push(arrival);
    return arrival.ok ? new Response('ok') : new Response('busy', { status: 503 });
  });
  return { url: `${server.url}/hooks`, arrivals };
}

/**
 * The done-when: the first event of order A fails twice; A's later events wait, order B's flow, and
 * A's arrive in sequence after the retry. `writers` are the switchboards the writes go through in turn
 * (two on one PostgreSQL: each event of A is written by the other instance than the one before).
 */
async function failingFirstEventOfA(writers: readonly Switchboard[]): Promise<void> {
  const [first] = writers;
  const writer = (i: number) => writers[i % writers.length]!.domain;
  let orderA = '';
  let failuresOfA1 = 0;
  const { url, arrivals } = await receiver((a) => {
    if (a.subject !== orderA || a.sequence !== 1 || failuresOfA1 >= 2) return false;
    failuresOfA1++;
    return true;
  });
  const { endpoint } = await first!.webhooks!.admin.createEndpoint({
    url,
    eventTypes: ['order.*'],
    ordering: 'subject',
  });
  expect(endpoint.ordering).toBe('subject');
  const client = await writer(0).clients.create({ name: 'Ada', email: 'ada@example.com' });
  const a = await writer(0).orders.create({ clientId: client.id, total: '10.00', currency: 'EUR' });
  orderA = a.id;
  await until(() => failuresOfA1 === 1, 'the first failure of A’s first event');
  // A's later events are made while its first waits for its retry; B's all the while too.
  const b = await writer(1).orders.create({ clientId: client.id, total: '20.00', currency: 'EUR' });
  await writer(1).orders.update(a.id, { status: 'paid' });
  await writer(0).orders.update(b.id, { status: 'paid' });
  await writer(0).orders.update(a.id, { status: 'shipped' });
  await writer(1).orders.update(b.id, { status: 'shipped' });

  const succeeded = (subject: string) => arrivals.filter((x) => x.ok && x.subject === subject);
  await until(() => succeeded(b.id).length === 3, 'order B’s three events', 10_000);
  // B flowed while A's first event was still failing: A's later events had not been sent at all.
  expect(arrivals.filter((x) => x.subject === a.id).map((x) => [x.sequence, x.ok])).toEqual(
    failuresOfA1 === 2
      ? [
          [1, false],
          [1, false],
        ]
      : [[1, false]],
  );
  await until(() => succeeded(a.id).length === 3, 'order A’s three events', 15_000);

  const ofA = arrivals.filter((x) => x.subject === a.id);
  expect(ofA.map((x) => [x.event, x.sequence, x.ok])).toEqual([
    ['order.created', 1, false],
    ['order.created', 1, false],
    ['order.created', 1, true],
    ['order.paid', 2, true],
    ['order.shipped', 3, true],
  ]);
  expect(succeeded(b.id).map((x) => [x.event, x.sequence])).toEqual([
    ['order.created', 1],
    ['order.paid', 2],
    ['order.shipped', 3],
  ]);
  // Every one of B's arrived before A's first event got through.
  const firstOfA = arrivals.findIndex((x) => x.subject === a.id && x.ok);
  expect(arrivals.findLastIndex((x) => x.subject === b.id)).toBeLessThan(firstOfA);
}

describe('ordered delivery per subject', () => {
  it('on memory: a failing first event of order A holds A’s later events only', async () => {
    await failingFirstEventOfA([instance(createMemoryStorage())]);
  });

  describe('on two instances sharing PostgreSQL', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(() => db?.drop());

    it('a failing first event of order A holds A’s later events only, across instances', async () => {
      await failingFirstEventOfA([instance(await db.storage()), instance(await db.storage())]);
    });

    it('announces a hold once whichever instance sees it, and a skip on the other lets the next go', async () => {
      await db.truncate();
      const [one, two] = [instance(await db.storage(), 200), instance(await db.storage(), 200)];
      let orderA = '';
      const { url, arrivals } = await receiver((a) => a.subject === orderA && a.sequence === 1);
      const operator = await receiver();
      const { endpoint } = await one!.webhooks!.admin.createEndpoint({
        url,
        eventTypes: ['order.*'],
        ordering: 'subject',
      });
      await one!.webhooks!.admin.createEndpoint({ url: operator.url, eventTypes: ['webhook_subject.held'] });
      const client = await one!.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
      const a = await one!.domain.orders.create({ clientId: client.id, total: '10.00', currency: 'EUR' });
      orderA = a.id;
      await until(() => arrivals.length === 1, 'the first failure');
      await two!.domain.orders.update(a.id, { status: 'paid' });
      await until(() => operator.arrivals.length === 1, 'the held event', 5_000);
      // Both dispatchers look every 50 ms: still one event a while later.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(operator.arrivals.map((x) => [x.event, (x.data as { subject: string }).subject])).toEqual([
        ['webhook_subject.held', a.id],
      ]);

      const [held] = await two!.webhooks!.admin.listHeldSubjects(endpoint.id);
      const skipped = await two!.fetch(
        new Request('http://switchboard.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            query:
              'mutation($id: ID!) { skipWebhookDelivery(id: $id) { status lastError subject sequence } }',
            variables: { id: held!.blocking.id },
          }),
        }),
      );
      expect(((await skipped.json()) as { data: unknown }).data).toEqual({
        skipWebhookDelivery: {
          status: 'DEAD',
          lastError: expect.stringMatching(/^Skipped by an operator/),
          subject: a.id,
          sequence: 1,
        },
      });
      await until(
        () => arrivals.some((x) => x.subject === a.id && x.sequence === 2 && x.ok),
        'A’s next event',
      );
    });
  });

  it('sets ordering over REST on create and PATCH, none by default, and refuses any other value', async () => {
    const switchboard = instance(createMemoryStorage());
    const api = (path: string, method: string, body: unknown) =>
      switchboard.fetch(
        new Request(`http://switchboard.test/api/v1${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const url = 'https://bot.example.com/hooks';
    const plain = (await (
      await api('/webhook-endpoints', 'POST', { url, eventTypes: ['order.*'] })
    ).json()) as {
      id: string;
      ordering: string;
    };
    expect(plain.ordering).toBe('none');
    const changed = await api(`/webhook-endpoints/${plain.id}`, 'PATCH', { ordering: 'subject' });
    expect(((await changed.json()) as { ordering: string }).ordering).toBe('subject');
    const refused = await api('/webhook-endpoints', 'POST', {
      url,
      eventTypes: ['order.*'],
      ordering: 'fifo',
    });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ code: 'validation_failed' });
  });

  it('announces a held subject once, lists it, and lets the operator skip its blocking event', async () => {
    const switchboard = instance(createMemoryStorage(), 200);
    const admin = switchboard.webhooks!.admin;
    let orderA = '';
    const { url, arrivals } = await receiver((a) => a.subject === orderA && a.sequence === 1);
    const operator = await receiver();
    const { endpoint } = await admin.createEndpoint({ url, eventTypes: ['order.*'], ordering: 'subject' });
    await admin.createEndpoint({ url: operator.url, eventTypes: ['webhook_subject.held'] });
    const client = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const a = await switchboard.domain.orders.create({
      clientId: client.id,
      total: '10.00',
      currency: 'EUR',
    });
    orderA = a.id;
    await until(() => arrivals.length === 1, 'the first failure');
    await switchboard.domain.orders.update(a.id, { status: 'paid' });

    await until(() => operator.arrivals.length === 1, 'the held event', 5_000);
    const [held] = operator.arrivals;
    expect(held).toMatchObject({
      event: 'webhook_subject.held',
      subject: endpoint.id,
      data: {
        endpointId: endpoint.id,
        subject: a.id,
        waiting: 1,
        blocking: { eventType: 'order.created', sequence: 1 },
      },
    });

    // The same hold through REST and GraphQL.
    const base = 'http://switchboard.test';
    const rest = await switchboard.fetch(
      new Request(`${base}/api/v1/webhook-endpoints/${endpoint.id}/held-subjects`),
    );
    expect(rest.status).toBe(200);
    const { items } = (await rest.json()) as {
      items: { subject: string; waiting: number; blocking: { id: string } }[];
    };
    expect(items).toEqual([expect.objectContaining({ subject: a.id, waiting: 1 })]);
    const graphql = await switchboard.fetch(
      new Request(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `query($id: ID!) { webhookEndpoint(id: $id) { ordering heldSubjects { subject waiting blocking { id sequence } } } }`,
          variables: { id: endpoint.id },
        }),
      }),
    );
    expect(((await graphql.json()) as { data: unknown }).data).toEqual({
      webhookEndpoint: {
        ordering: 'subject',
        heldSubjects: [{ subject: a.id, waiting: 1, blocking: { id: items[0]!.blocking.id, sequence: 1 } }],
      },
    });
    // Still held a while later: announced once only.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(operator.arrivals).toHaveLength(1);

    const skipped = await switchboard.fetch(
      new Request(
        `${base}/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${items[0]!.blocking.id}/skips`,
        { method: 'POST' },
      ),
    );
    expect(skipped.status).toBe(200);
    expect(await skipped.json()).toMatchObject({
      status: 'dead',
      lastError: expect.stringMatching(/^Skipped/),
    });
    await until(() => arrivals.some((x) => x.sequence === 2 && x.ok), 'the next event of A');
    expect(await admin.listHeldSubjects(endpoint.id)).toEqual([]);
    const again = await switchboard.fetch(
      new Request(
        `${base}/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${items[0]!.blocking.id}/skips`,
        { method: 'POST' },
      ),
    );
    expect(again.status).toBe(409);
  });
});

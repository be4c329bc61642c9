/**
 * An ordered endpoint in the console, over its HTTP routes: its page shows a held subject (the subject,
 * the delivery that blocks it, since when, how many wait), Skip asks first and then gives up on the
 * blocking event so the next one of its subject is sent, and the ordering can be changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { until } from '../support/until.js';
import { listen } from '../webhooks/support.js';
import {
  ADMIN_KEY,
  type ConsoleInstance,
  closeConsoles,
  get,
  post,
  type Session,
  signIn,
  startConsoles,
} from './support.js';

describe('an ordered endpoint in the console', () => {
  let consoles: ConsoleInstance[];
  let base: string;
  let session: Session;
  beforeAll(async () => {
    consoles = await startConsoles(() => createMemoryStorage(), 1, {
      relayIntervalMs: 20,
      webhooks: {
        outbound: { allowHttp: true, allowPrivateAddresses: true },
        pollIntervalMs: 20,
        attempts: 3,
        delaysMs: [0, 60_000, 60_000],
      },
    });
    consoles[0]!.switchboard.start();
    base = consoles[0]!.base;
    session = await signIn(base, { api_key: ADMIN_KEY });
  });
  afterAll(() => closeConsoles(consoles));

  it('shows a held subject and skips its blocking event, letting the next one go', async () => {
    const { switchboard } = consoles[0]!;
    const arrivals: { subject: string; sequence: number }[] = [];
    let failing = '';
    const receiver = await listen(async (request) => {
      const body = (await request.json()) as { subject: string; sequence: number };
      arrivals.push(body);
      return body.subject === failing && body.sequence === 1
        ? new Response('no', { status: 503 })
        : new Response('ok');
    });
    const { endpoint } = await switchboard.webhooks!.admin.createEndpoint({
      url: `${receiver.url}/hooks`,
      eventTypes: ['order.*'],
      ordering: 'subject',
    });
    const client = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const order = await switchboard.domain.orders.create({
      clientId: client.id,
      total: '9.00',
      currency: 'EUR',
    });
    failing = order.id;
    await until(() => arrivals.length === 1, 'the failed first attempt');
    await switchboard.domain.orders.update(order.id, { status: 'paid' });
    await until(
      async () => (await switchboard.webhooks!.admin.listHeldSubjects(endpoint.id)).length === 1,
      'the held subject',
    );
    const [held] = await switchboard.webhooks!.admin.listHeldSubjects(endpoint.id);

    const at = `/webhooks/${endpoint.id}`;
    const page = await (await get(base, at, session)).text();
    expect(page).toContain('1 held subject');
    expect(page).toContain('<caption>Held subjects: later events wait behind a failing one</caption>');
    expect(page).toContain(`<code>${order.id}</code>`);
    expect(page).toContain('order.created #1');
    expect(page).toContain('HTTP 503');
    expect(page).toMatch(/<td data-label="Waiting">1<\/td>/);
    const skipPath = `${at}/deliveries/${held!.blocking.id}/skip`;
    expect(page).toContain(`href="/console${skipPath}"`);

    const ask = await get(base, skipPath, session);
    expect(ask.status).toBe(200);
    expect(await ask.text()).toContain(`Skip the order.created event of ${order.id}?`);
    const skipped = await post(base, skipPath, session);
    expect(skipped.status).toBe(303);
    const notice = new URL(skipped.headers.get('location')!, base).searchParams.get('notice');
    expect(notice).toBe(`The order.created event is skipped (dead); the next event of ${order.id} goes now.`);
    await until(() => arrivals.some((a) => a.subject === order.id && a.sequence === 2), 'the next event');
    expect((await switchboard.webhooks!.admin.getDelivery(held!.blocking.id)).status).toBe('dead');
    expect(await (await get(base, at, session)).text()).not.toContain('held subject');

    // Skipping what is no longer pending is refused, and says why.
    const again = await post(base, skipPath, session);
    expect(again.status).toBe(409);

    const changed = await post(base, `${at}/ordering`, session, { ordering: 'none' });
    expect(changed.status).toBe(303);
    expect((await switchboard.webhooks!.admin.getEndpoint(endpoint.id)).ordering).toBe('none');
    const refused = await post(base, `${at}/ordering`, session, { ordering: 'sideways' });
    expect(refused.status).toBe(422);
  });
});

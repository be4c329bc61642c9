/**
 * The console's webhook pages as an operator uses them, in a real headless Chromium, against a real
 * receiver that answers 500 and then 200: the delivery log first on the endpoint page, Retry now (the
 * receiver gets the attempt within seconds), replay-since counting deliveries waiting after a failure
 * (and a neutral notice when there is none), a wildcard endpoint edited without losing `order.*`, times
 * marked UTC, health that agrees with the log, the exact bytes the receiver got, the response headers,
 * search by event and delivery id, and a test event of a chosen kind. Every page passes axe-core and
 * fits 1280 and 390 px; screenshots of each go to test/.screenshots/ (gitignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { verifyWebhook } from '../../src/webhooks/index.js';
import { ADMIN_KEY, type Demo, startDemo } from '../oauth/support.js';
import { seriousViolations } from '../support/axe.js';
import { until } from '../support/until.js';

const executablePath =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
const SHOTS = 'test/.screenshots/console-webhooks';
const WIDTHS = [1280, 390] as const;
/** A UTC time as the console writes it: `2026-01-31 14:05:09 UTC`. */
const UTC_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

interface Received {
  readonly body: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly at: number;
}

describe('the console webhook pages, as an operator acts on a failing receiver', () => {
  let demo: Demo;
  let browser: Browser;
  let receiver: NodeServer;
  const state = { failing: true, received: [] as Received[] };
  /** Pages seen, by name, to check and photograph at both widths at the end. */
  const pages = new Map<string, string>();

  beforeAll(async () => {
    if (!executablePath) throw new Error('Install Chromium (apt-get install chromium) or set CHROMIUM_PATH.');
    receiver = await serve({
      port: 0,
      shutdownSignals: [],
      fetch: async (request) => {
        const body = await request.text();
        state.received.push({ body, headers: Object.fromEntries(request.headers), at: Date.now() });
        const headers = { 'x-receiver-note': state.failing ? 'down for maintenance' : 'thanks' };
        return state.failing
          ? new Response('receiver is down', { status: 500, headers })
          : new Response('ok', { headers });
      },
    });
    demo = await startDemo({
      clock: systemClock,
      relayIntervalMs: 50,
      webhooks: {
        attempts: 5,
        // A failed delivery waits a minute for its next attempt: only Retry now or a replay brings it sooner.
        delaysMs: [60_000, 60_000, 60_000, 60_000],
        outbound: { allowHttp: true, allowPrivateAddresses: true },
      },
    });
    demo.switchboard.start();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.switchboard.close();
    await demo?.close();
    await receiver?.close();
  });

  async function open(width: number = WIDTHS[0]): Promise<{ page: Page; outside: string[] }> {
    // axe-core is injected past the pages' CSP, for the test only.
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(demo.base)) outside.push(request.url());
    });
    return { page, outside };
  }

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${demo.base}/console`);
    await page.getByLabel('Admin API key').fill(ADMIN_KEY);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor();
  }

  const api = async (path: string, init: RequestInit = {}) =>
    fetch(`${demo.base}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', ...init.headers },
    });

  /** Every time a table shows is marked UTC. */
  async function timesAreUtc(page: Page): Promise<void> {
    const times = await page.locator('td time').allTextContents();
    expect(times.length).toBeGreaterThan(0);
    for (const t of times) expect(t).toMatch(UTC_TIME);
  }

  const log = (page: Page) => page.getByRole('table', { name: 'Deliveries, newest first' });

  /** Reloads until the delivery log shows `count` rows with this status. */
  async function untilLog(page: Page, status: string, count: number, what: string): Promise<void> {
    await until(
      async () => {
        await page.reload();
        return (await log(page).locator(`td .status-${status}`).count()) === count;
      },
      what,
      20_000,
    );
  }

  it('walks a failing endpoint: retry now, replay-since, wildcards, health, exact bytes, search', async () => {
    const { page, outside } = await open();
    await signIn(page);

    // Create an endpoint for every order event with the wildcard, as the form offers it.
    await page.getByLabel('Receiver URL').fill(`${receiver.url}/hooks`);
    await page.getByLabel('Description').fill('Order sync');
    await page.getByRole('checkbox', { name: '*', exact: true }).uncheck();
    // With no event type ticked, the form comes back with the error beside the event types, values kept.
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.locator('#eventTypes-error').waitFor();
    expect(await page.getByLabel('Receiver URL').inputValue()).toBe(`${receiver.url}/hooks`);
    await page.getByRole('checkbox', { name: 'order.*', exact: true }).check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    // See Other to the endpoint, its secret shown there once.
    await page.getByRole('heading', { name: /^Endpoint / }).waitFor();
    const secret = (await page.locator('code.secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await page.reload();
    expect(await page.locator('code.secret').count()).toBe(0);
    const endpointUrl = page.url().split('?')[0]!;
    const endpointId = decodeURIComponent(endpointUrl.split('/').at(-1)!);
    // The delivery log leads the page.
    expect(await page.locator('main h2').first().textContent()).toBe('Delivery log');
    const picked = page.getByRole('group', { name: 'Event types it receives' });
    expect(await picked.getByRole('checkbox', { name: 'order.*', exact: true }).isChecked()).toBe(true);
    expect(await picked.getByRole('checkbox', { name: '*', exact: true }).isChecked()).toBe(false);

    // An order is created: the receiver answers 500, and the delivery waits a minute for its retry.
    const client = await demo.switchboard.domain.clients.create({
      name: 'Mae Jemison',
      email: 'mae@example.com',
    });
    await demo.switchboard.domain.orders.create({ clientId: client.id, total: '42.00', currency: 'EUR' });
    await untilLog(page, 'pending', 1, 'the failing delivery to show as pending');
    await until(async () => {
      await page.reload();
      return (await log(page).locator('tbody tr td').nth(2).textContent()) === '1';
    }, 'its first attempt to be recorded');
    expect(state.received).toHaveLength(1);
    // Health agrees with the log: one failed attempt, a success rate of 0 %, the last status 500.
    const health = (await page.locator('#health + dl').textContent())!;
    expect(health).toContain('0% of attempts');
    expect(health).toContain('0 succeeded, 1 failed');
    expect(health).toMatch(/failed \(500\)/);
    expect(
      await page
        .getByRole('img', { name: /Attempts per hour over the last 24 hours: 1 in all, 1 failed/ })
        .count(),
    ).toBe(1);
    await timesAreUtc(page);
    pages.set('endpoint', page.url());

    // The list shows each endpoint's health.
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    const row = page.getByRole('row', { name: new RegExp(receiver.url.replace(/[.:/]/g, '\\$&')) });
    expect(await row.textContent()).toMatch(/0% of 1 attempt in 24 h.*last: 500/s);
    await timesAreUtc(page);
    pages.set('webhooks', page.url());

    // Replay-since takes the delivery waiting after its failure (not only dead ones).
    await page.goto(endpointUrl);
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
    await page.getByLabel('Replay every failed delivery since (UTC)').fill(since);
    await page.getByRole('button', { name: 'Replay failed' }).click();
    expect(await page.locator('.notice').textContent()).toContain('1 failed delivery is sent again');
    await until(() => state.received.length === 2, 'the replayed attempt to reach the receiver', 10_000);

    // The receiver is fixed; Retry now on the delivery: the receiver gets it within seconds.
    state.failing = false;
    await page.reload();
    await log(page).getByRole('link').first().click();
    await page.getByRole('heading', { name: /^Delivery / }).waitFor();
    const deliveryUrl = page.url().split('?')[0]!;
    await until(async () => {
      await page.reload();
      return (await page.getByRole('table', { name: 'Attempts' }).locator('tbody tr').count()) === 2;
    }, 'the replayed attempt in the log');
    const clicked = Date.now();
    await page.getByRole('button', { name: 'Retry now' }).click();
    // The form's redirect lands first: a reload while it is on its way detaches the page.
    expect(await page.locator('.notice').textContent()).toContain('Retrying now');
    await until(() => state.received.length === 3, 'Retry now to reach the receiver', 5_000);
    expect(state.received[2]!.at - clicked).toBeLessThan(5_000);
    await until(async () => {
      await page.goto(deliveryUrl);
      return (await page.locator('dd .status-succeeded').count()) === 1;
    }, 'the delivery to succeed');
    // Attempts numbered across the replay and the retry.
    const numbers = await page
      .getByRole('table', { name: 'Attempts' })
      .locator('tbody tr td:first-child')
      .allTextContents();
    expect(numbers).toEqual(['#1', '#2', '#3']);
    // The exact bytes shown are the bytes the receiver got, and the headers match what it got.
    const got = state.received[2]!;
    expect(await page.getByLabel('Body', { exact: true }).textContent()).toBe(got.body);
    const sentHeaders = (await page.getByLabel('Headers of the last attempt').textContent())!;
    expect(sentHeaders).toContain(`x-signature: ${got.headers['x-signature']}`);
    // An HMAC over the bytes shown, with the headers shown, matches the signature.
    const shown = Object.fromEntries(
      sentHeaders
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
    );
    const body = (await page.getByLabel('Body', { exact: true }).textContent())!;
    expect(await verifyWebhook({ body, headers: shown, secrets: [secret] })).toMatchObject({ ok: true });
    expect(await page.getByLabel("Receiver's response headers").textContent()).toContain(
      'x-receiver-note: thanks',
    );
    expect(await page.locator('dt:has-text("Next attempt") + dd').textContent()).toContain('succeeded');
    await timesAreUtc(page);
    pages.set('delivery', page.url());

    // Nothing failed since: a neutral notice, no success announced.
    await page.goto(endpointUrl);
    await page.getByLabel('Replay every failed delivery since (UTC)').fill(since);
    await page.getByRole('button', { name: 'Replay failed' }).click();
    expect(await page.locator('p.info').textContent()).toMatch(
      /^No failed deliveries since .+ UTC: nothing was sent again\.$/,
    );
    expect(await page.locator('.notice').count()).toBe(0);

    // Search by event id (the receiver saw it) and by delivery id.
    const eventId = JSON.parse(got.body).event_id as string;
    await page.getByLabel('Event or delivery id').fill(eventId);
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await log(page).locator('tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByLabel("Find a delivery by its id or its event's id").fill(eventId);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByRole('heading', { name: 'Find a delivery' }).waitFor();
    expect(await page.getByRole('table').textContent()).toContain(endpointId);
    pages.set('find', page.url());
    const deliveryId = decodeURIComponent(deliveryUrl.split('/').at(-1)!);
    await page.getByLabel("Find a delivery by its id or its event's id").fill(deliveryId);
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByRole('heading', { name: `Delivery ${deliveryId}` }).waitFor();

    // A test event of a chosen kind.
    await page.goto(endpointUrl);
    await page.getByLabel('Event type of the test').selectOption('order.paid');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    expect(await page.locator('.notice').textContent()).toContain('order.paid');
    await until(
      () => state.received.some((r) => JSON.parse(r.body).event === 'order.paid'),
      'the order.paid test event to arrive',
    );

    // Edit the event types: add one single kind; order.* stays.
    await page
      .getByRole('group', { name: 'Event types it receives' })
      .getByRole('checkbox', { name: 'client.created', exact: true })
      .check();
    await page.getByRole('button', { name: 'Save event types' }).click();
    expect(await page.locator('.notice').textContent()).toContain('Event types saved');
    const saved = await (await api(`/webhook-endpoints/${endpointId}`)).json();
    expect(saved.eventTypes).toEqual(['order.*', 'client.created']);

    // A time that is none is refused beside its field.
    await page.getByLabel('Replay every failed delivery since (UTC)').fill('yesterday');
    await page.getByRole('button', { name: 'Replay failed' }).click();
    expect(await page.locator('#since-error').textContent()).toContain('2026-01-31 14:05');
    // Rotating the secret asks first (no script needed), then shows the new one once.
    await page.getByRole('link', { name: /^Rotate the secret/ }).click();
    await page.getByRole('heading', { name: /^Rotate the secret of / }).waitFor();
    pages.set('confirm', page.url());
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByRole('heading', { name: /^Endpoint / }).waitFor();
    const rotated = (await page.locator('code.secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(outside).toEqual([]);
  }, 120_000);

  it('shows an ordered endpoint’s held subjects and skips the event that holds one', async () => {
    // Every order's first event fails (and waits a minute for its retry): its later events are held.
    const arrivals: { subject: string; sequence: number }[] = [];
    const failing = await serve({
      port: 0,
      shutdownSignals: [],
      fetch: async (request) => {
        const body = (await request.json()) as { subject: string; sequence: number };
        arrivals.push(body);
        return body.sequence === 1 ? new Response('not yet', { status: 503 }) : new Response('ok');
      },
    });
    try {
      const created = await api('/webhook-endpoints', {
        method: 'POST',
        body: JSON.stringify({ url: `${failing.url}/hooks`, eventTypes: ['order.*'], ordering: 'subject' }),
      });
      const { id } = await created.json();
      const { domain } = demo.switchboard;
      const client = await domain.clients.create({ name: 'Katherine Johnson', email: 'kj@example.com' });
      const [a, b] = [
        await domain.orders.create({ clientId: client.id, total: '10.00', currency: 'EUR' }),
        await domain.orders.create({ clientId: client.id, total: '20.00', currency: 'EUR' }),
      ];
      await until(() => arrivals.length === 2, 'both first events to fail', 10_000);
      await domain.orders.update(a!.id, { status: 'paid' });
      await domain.orders.update(b!.id, { status: 'paid' });

      const { page } = await open();
      await signIn(page);
      const endpointUrl = `${demo.base}/console/webhooks/${id}`;
      const held = page.getByRole('table', { name: /^Held subjects/ });
      await until(async () => {
        await page.goto(endpointUrl);
        return (await held.locator('tbody tr').count()) === 2;
      }, 'two held subjects');
      const rowOfA = held.locator('tbody tr', { hasText: a!.id });
      expect(await rowOfA.textContent()).toMatch(/order\.created #1.*1 failed \(HTTP 503\)/s);
      expect(await page.getByRole('link', { name: '2 held subjects' }).count()).toBe(1);
      await timesAreUtc(page);

      await rowOfA.getByRole('link', { name: /^Skip/ }).click();
      await page.getByRole('heading', { name: `Skip the order.created event of ${a!.id}?` }).waitFor();
      pages.set('skip', page.url());
      await page.getByRole('button', { name: 'Skip the event' }).click();
      expect(await page.locator('.notice').textContent()).toContain('is skipped');
      await until(() => arrivals.some((x) => x.subject === a!.id && x.sequence === 2), 'A’s next event');
      expect(arrivals.some((x) => x.subject === b!.id && x.sequence === 2)).toBe(false);
      await page.goto(endpointUrl);
      expect(await held.locator('tbody tr').count()).toBe(1);
      // B stays held (its first event keeps failing): the page is checked with it below.
      pages.set('held', endpointUrl);
    } finally {
      await failing.close();
    }
  }, 60_000);

  it('keeps a pattern the catalogue does not list when the form is saved', async () => {
    const created = await api('/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({
        url: 'https://legacy.example.com/hooks',
        eventTypes: ['legacy.*', 'order.paid'],
      }),
    });
    const { id } = await created.json();
    const { page } = await open();
    await signIn(page);
    await page.goto(`${demo.base}/console/webhooks/${id}`);
    const picked = page.getByRole('group', { name: 'Event types it receives' });
    expect(await picked.getByRole('checkbox', { name: 'legacy.*', exact: true }).isChecked()).toBe(true);
    expect(await picked.getByRole('checkbox', { name: 'order.paid', exact: true }).isChecked()).toBe(true);
    await picked.getByRole('checkbox', { name: 'order.*', exact: true }).check();
    await page.getByRole('button', { name: 'Save event types' }).click();
    const saved = await (await api(`/webhook-endpoints/${id}`)).json();
    expect([...saved.eventTypes].sort()).toEqual(['legacy.*', 'order.*', 'order.paid']);
  });

  it('every webhook page passes axe-core and fits 1280 and 390 px, photographed at both', async () => {
    pages.set('event-types', `${demo.base}/console/event-types`);
    expect([...pages.keys()].sort()).toEqual([
      'confirm',
      'delivery',
      'endpoint',
      'event-types',
      'find',
      'held',
      'skip',
      'webhooks',
    ]);
    for (const width of WIDTHS) {
      const { page, outside } = await open(width);
      await signIn(page);
      for (const [name, url] of pages) {
        await page.goto(url);
        expect(await seriousViolations(page), `axe on ${name} at ${width} px`).toEqual([]);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${name} fits ${width} px`).toBeLessThanOrEqual(0);
        await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: name !== 'event-types' });
      }
      expect(outside).toEqual([]);
      await page.context().close();
    }
  }, 120_000);
});

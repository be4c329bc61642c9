/**
 * A receiver's pace: with `maxPerSecond`, an endpoint gets at most that many deliveries in any second
 * (evenly spaced), and the ones that wait spend no attempt.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard, trustEveryone } from '../../src/index.js';
import { until } from '../support/until.js';
import { listen } from './support.js';

const started: Switchboard[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

describe('a per-endpoint send rate', () => {
  it('sends an endpoint no more than maxPerSecond, holding the rest without spending attempts', async () => {
    const arrivals: number[] = [];
    const receiver = await listen(async (request) => {
      await request.text();
      arrivals.push(Date.now());
      return new Response('ok');
    });
    const switchboard = createSwitchboard({
      authenticate: trustEveryone,
      relayIntervalMs: 20,
      webhooks: {
        outbound: { allowHttp: true, allowPrivateAddresses: true },
        pollIntervalMs: 20,
        maxPerSecond: 2,
      },
    });
    started.push(switchboard);
    switchboard.start();
    const { endpoint } = await switchboard.webhooks!.admin.createEndpoint({
      url: `${receiver.url}/hooks`,
      eventTypes: ['client.created'],
    });
    for (let i = 0; i < 6; i++)
      await switchboard.domain.clients.create({ name: `C${i}`, email: `c${i}@example.com` });
    await until(() => arrivals.length === 6, 'six deliveries', 10_000);
    // The last arrival is recorded before its answer reaches the sender, which then writes the outcome.
    const deliveries = () =>
      switchboard.webhooks!.admin.listDeliveries({ endpointId: endpoint.id }, { offset: 0, limit: 10 });
    await until(
      async () => (await deliveries()).items.every((d) => d.status !== 'pending'),
      'the outcomes written',
    );

    const { items } = await deliveries();
    expect(items.map((d) => [d.status, d.attempts])).toEqual(Array(6).fill(['succeeded', 1]));
    // The sender's own record of when each attempt started: one every 500 ms at the earliest, so no
    // second holds more than two (arrival times may bunch on a busy machine; the starts do not).
    const starts = (await Promise.all(items.map((d) => switchboard.webhooks!.admin.listAttempts(d.id))))
      .flat()
      .map((a) => Date.parse(a.startedAt))
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(6);
    for (let i = 1; i < 6; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(499);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(1500);
  });
});

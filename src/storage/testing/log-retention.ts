import { expect, it } from 'vitest';
import type { Storage } from '../../core/storage/index.js';
import { aDelivery, anEndpoint } from './webhook-fixtures.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 6, 1);

export function logRetentionContract(storage: () => Storage): void {
  it('prunes each endpoint’s finished deliveries after its own logRetentionDays, the others after the default', async () => {
    const s = storage();
    const short = anEndpoint({ logRetentionDays: 1 });
    const long = anEndpoint({ logRetentionDays: 90 });
    const usual = anEndpoint();
    for (const e of [short, long, usual]) await s.webhooks.endpoints.insert(e);
    const finished = (endpointId: string, daysAgo: number, status: 'succeeded' | 'pending' = 'succeeded') =>
      aDelivery(endpointId, {
        status,
        nextAttemptAt: status === 'pending' ? NOW : null,
        createdAt: NOW - daysAgo * DAY,
        updatedAt: NOW - daysAgo * DAY,
      });
    const gone = [finished(short.id, 2), finished(long.id, 91), finished(usual.id, 31)];
    const kept = [
      finished(short.id, 0.5),
      finished(short.id, 5, 'pending'),
      finished(long.id, 60),
      finished(usual.id, 29),
    ];
    for (const d of [...gone, ...kept]) await s.webhooks.deliveries.createIfAbsent(d);
    expect(await s.webhooks.endpoints.get(short.id)).toEqual(short);

    expect(await s.webhooks.deliveries.prune(NOW - 30 * DAY, { now: NOW })).toBe(3);
    for (const d of gone) expect(await s.webhooks.deliveries.get(d.id)).toBeNull();
    for (const d of kept) expect(await s.webhooks.deliveries.get(d.id)).toEqual(d);
    // Without `now`, one cut-off for every endpoint, as before.
    expect(await s.webhooks.deliveries.prune(NOW - 30 * DAY)).toBe(1);
    expect(await s.webhooks.deliveries.get(kept[2]!.id)).toBeNull();
  });

  it('keeps an endpoint’s logRetentionDays through an update, and clears it with null', async () => {
    const s = storage();
    const endpoint = anEndpoint();
    await s.webhooks.endpoints.insert(endpoint);
    const set = { ...endpoint, logRetentionDays: 7, version: 2 };
    expect(await s.webhooks.endpoints.update(set, 1)).toBe(true);
    expect(await s.webhooks.endpoints.get(endpoint.id)).toEqual(set);
    const cleared = { ...set, logRetentionDays: null, version: 3 };
    expect(await s.webhooks.endpoints.update(cleared, 2)).toBe(true);
    expect(await s.webhooks.endpoints.get(endpoint.id)).toEqual(cleared);
  });
}

import { expect, it } from 'vitest';
import type { Storage } from '../../core/storage/index.js';
import { anApiKey } from './api-keys.js';
import { anOAuthClient } from './oauth.js';
import { aDelivery, anAttempt, anEndpoint } from './webhook-fixtures.js';

/**
 * Instants with milliseconds that a rounding to seconds or microseconds, a time zone or a float would
 * change: the first millisecond of the epoch, a leap day, the last millisecond of a year, and 9999.
 */
const INSTANTS = [
  1,
  Date.UTC(2028, 1, 29, 12, 30, 45, 678),
  Date.UTC(2026, 11, 31, 23, 59, 59, 999),
  Date.UTC(9999, 0, 1, 0, 0, 0, 1),
];

/**
 * Every time outside a business record is epoch milliseconds in the storage port: what goes in comes
 * back as the same number, whatever the adapter keeps it as.
 */
export function timeContract(storage: () => Storage): void {
  it('gives back every time of an API key and an OAuth client to the millisecond', async () => {
    const s = storage();
    for (const [i, t] of INSTANTS.entries()) {
      const key = anApiKey({ createdAt: t, revokedAt: t + 1, lastUsedAt: t + 2 });
      await s.apiKeys.insert(key);
      expect(await s.apiKeys.get(key.id)).toEqual(key);
      const client = anOAuthClient({ createdAt: t });
      await s.oauth.clients.insert(client);
      const rotated = { ...client, previousSecret: { hash: `${i}`.padStart(64, 'c'), until: t + 3 } };
      await s.oauth.clients.update(rotated);
      expect(await s.oauth.clients.get(client.id)).toEqual(rotated);
    }
  });

  it('gives back every time of a webhook endpoint, delivery and attempt to the millisecond', async () => {
    const s = storage();
    for (const t of INSTANTS) {
      const endpoint = anEndpoint({
        secrets: [
          { secret: 'whsec_new', createdAt: t, expiresAt: null },
          { secret: 'whsec_old', createdAt: t - 1, expiresAt: t + 1 },
        ],
        failingSince: t + 2,
        createdAt: t,
        updatedAt: t + 3,
      });
      await s.webhooks.endpoints.insert(endpoint);
      expect(await s.webhooks.endpoints.get(endpoint.id)).toEqual(endpoint);
      const delivery = aDelivery(endpoint.id, {
        nextAttemptAt: t + 4,
        leasedBy: 'worker-a',
        leaseUntil: t + 5,
        createdAt: t,
        updatedAt: t + 6,
      });
      await s.webhooks.deliveries.createIfAbsent(delivery);
      expect(await s.webhooks.deliveries.get(delivery.id)).toEqual(delivery);
      const attempt = anAttempt(delivery, { startedAt: t + 7 });
      await s.webhooks.attempts.insert(attempt);
      expect(await s.webhooks.attempts.listByDelivery(delivery.id)).toEqual([attempt]);
    }
  });
}

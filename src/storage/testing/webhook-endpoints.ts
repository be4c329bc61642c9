import { expect, it } from 'vitest';
import type { Storage } from '../../core/storage/index.js';
import { ms } from './fixtures.js';
import { aDelivery, anEndpoint } from './webhook-fixtures.js';

const page = { offset: 0, limit: 50 };

export function webhookEndpointContract(storage: () => Storage): void {
  it('stores an endpoint with its secrets and lists endpoints oldest first', async () => {
    const s = storage();
    const [a, b] = [anEndpoint(), anEndpoint()];
    await s.webhooks.endpoints.insert(b);
    await s.webhooks.endpoints.insert(a);
    expect(await s.webhooks.endpoints.get(a.id)).toEqual(a);
    expect(await s.webhooks.endpoints.list(page)).toEqual({ items: [a, b], total: 2 });
    expect(await s.webhooks.endpoints.list({ offset: 1, limit: 1 })).toEqual({ items: [b], total: 2 });
    expect(await s.webhooks.endpoints.get('whe_missing')).toBeNull();
  });

  it('refuses a second endpoint with the same id', async () => {
    const s = storage();
    const endpoint = anEndpoint();
    await s.webhooks.endpoints.insert(endpoint);
    await expect(s.webhooks.endpoints.insert(endpoint)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('lists only enabled endpoints for the fan-out', async () => {
    const s = storage();
    const on = anEndpoint();
    await s.webhooks.endpoints.insert(on);
    await s.webhooks.endpoints.insert(anEndpoint({ enabled: false, disabledReason: 'manual' }));
    expect(await s.webhooks.endpoints.listEnabled()).toEqual([on]);
  });

  it('updates with compare-and-set on version', async () => {
    const s = storage();
    const endpoint = anEndpoint();
    await s.webhooks.endpoints.insert(endpoint);
    const next = { ...endpoint, url: 'https://new.example.com/hook', version: 2 };
    expect(await s.webhooks.endpoints.update(next, 1)).toBe(true);
    expect(await s.webhooks.endpoints.update({ ...next, description: 'stale' }, 1)).toBe(false);
    expect(await s.webhooks.endpoints.get(endpoint.id)).toEqual(next);
  });

  it('keeps the API version an endpoint is pinned to, and changes it on update', async () => {
    const s = storage();
    const endpoint = anEndpoint({ apiVersion: 2 });
    await s.webhooks.endpoints.insert(endpoint);
    expect(await s.webhooks.endpoints.get(endpoint.id)).toMatchObject({ apiVersion: 2 });
    expect(await s.webhooks.endpoints.listEnabled()).toEqual([endpoint]);
    expect(await s.webhooks.endpoints.update({ ...endpoint, apiVersion: 1, version: 2 }, 1)).toBe(true);
    expect(await s.webhooks.endpoints.get(endpoint.id)).toMatchObject({ apiVersion: 1, version: 2 });
  });

  it('keeps how an endpoint signs, and changes it on update', async () => {
    const s = storage();
    const endpoint = anEndpoint({ scheme: 'standard', signature: 'ed25519' });
    await s.webhooks.endpoints.insert(endpoint);
    expect(await s.webhooks.endpoints.get(endpoint.id)).toMatchObject({ signature: 'ed25519' });
    expect(await s.webhooks.endpoints.update({ ...endpoint, signature: 'hmac', version: 2 }, 1)).toBe(true);
    expect(await s.webhooks.endpoints.get(endpoint.id)).toMatchObject({ signature: 'hmac', version: 2 });
  });

  it("keeps an endpoint's delivery policy exactly, changes it on update, and drops what an update leaves out", async () => {
    const s = storage();
    const policy = {
      retrySchedule: [100, 200, 86_400_000],
      headers: { 'x-tenant': 'acme', authorization: 'Bearer t0k3n "quoted" é?' },
      maxPerSecond: 2.5,
      payload: 'thin' as const,
    };
    const endpoint = anEndpoint(policy);
    await s.webhooks.endpoints.insert(endpoint);
    expect(await s.webhooks.endpoints.get(endpoint.id)).toEqual(endpoint);
    expect(await s.webhooks.endpoints.listEnabled()).toEqual([endpoint]);
    // Without them: no key at all, as before they existed (not null, not a default).
    const { retrySchedule: _r, headers: _h, maxPerSecond: _m, payload: _p, ...plain } = endpoint;
    const changed = { ...plain, retrySchedule: [5_000], payload: 'full' as const, version: 2 };
    expect(await s.webhooks.endpoints.update(changed, 1)).toBe(true);
    const read = await s.webhooks.endpoints.get(endpoint.id);
    expect(read).toEqual(changed);
    expect(Object.keys(read!)).not.toContain('headers');
    expect(Object.keys(read!)).not.toContain('maxPerSecond');
    const bare = anEndpoint();
    await s.webhooks.endpoints.insert(bare);
    const keys = Object.keys((await s.webhooks.endpoints.get(bare.id))!);
    for (const field of ['retrySchedule', 'headers', 'maxPerSecond', 'payload'])
      expect(keys).not.toContain(field);
  });

  it('keeps the start of a failing run until a success clears it', async () => {
    const s = storage();
    const endpoint = anEndpoint();
    await s.webhooks.endpoints.insert(endpoint);
    const first = await s.webhooks.endpoints.recordOutcome(endpoint.id, { ok: false, at: ms(10) });
    expect(first?.failingSince).toBe(ms(10));
    const second = await s.webhooks.endpoints.recordOutcome(endpoint.id, { ok: false, at: ms(20) });
    expect(second?.failingSince).toBe(ms(10));
    const healed = await s.webhooks.endpoints.recordOutcome(endpoint.id, { ok: true, at: ms(30) });
    expect(healed?.failingSince).toBeNull();
    expect(await s.webhooks.endpoints.recordOutcome('whe_missing', { ok: true, at: ms(30) })).toBeNull();
  });

  it('disables an endpoint once, however many callers race to do it', async () => {
    const s = storage();
    const endpoint = anEndpoint();
    await s.webhooks.endpoints.insert(endpoint);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => s.webhooks.endpoints.disable(endpoint.id, 'failing', ms(40))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await s.webhooks.endpoints.get(endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
      version: 2,
    });
  });

  it('deletes an endpoint together with its deliveries and attempts', async () => {
    const s = storage();
    const endpoint = anEndpoint();
    const other = anEndpoint();
    await s.webhooks.endpoints.insert(endpoint);
    await s.webhooks.endpoints.insert(other);
    const delivery = aDelivery(endpoint.id);
    const kept = aDelivery(other.id);
    await s.webhooks.deliveries.createIfAbsent(delivery);
    await s.webhooks.deliveries.createIfAbsent(kept);
    await s.webhooks.attempts.insert({
      id: 'wha_contract_1',
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      number: 1,
      startedAt: ms(1),
      durationMs: 12,
      statusCode: 500,
      responseExcerpt: 'oops',
      error: null,
      succeeded: false,
      requestHeaders: { 'content-type': 'application/json' },
      responseHeaders: null,
    });
    expect(await s.webhooks.endpoints.delete(endpoint.id)).toBe(true);
    expect(await s.webhooks.endpoints.delete(endpoint.id)).toBe(false);
    expect(await s.webhooks.deliveries.get(delivery.id)).toBeNull();
    expect(await s.webhooks.attempts.listByDelivery(delivery.id)).toEqual([]);
    expect(await s.webhooks.attempts.listFailures(endpoint.id, 5)).toEqual([]);
    expect(await s.webhooks.deliveries.get(kept.id)).toEqual(kept);
    // The event may be delivered to a new endpoint later: the unique key went with the delivery.
    expect(await s.webhooks.deliveries.createIfAbsent({ ...delivery, id: 'whd_again' })).toBe(true);
  });

  it('takes back endpoint and delivery writes of a failed transaction', async () => {
    const s = storage();
    const endpoint = anEndpoint();
    await s.webhooks.endpoints.insert(endpoint);
    const delivery = aDelivery(endpoint.id);
    await expect(
      s.transaction(async (tx) => {
        await tx.webhooks.endpoints.disable(endpoint.id, 'failing', ms(5));
        await tx.webhooks.deliveries.createIfAbsent(delivery);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await s.webhooks.endpoints.get(endpoint.id)).toEqual(endpoint);
    expect(await s.webhooks.deliveries.get(delivery.id)).toBeNull();
    expect(await s.webhooks.deliveries.createIfAbsent(delivery)).toBe(true);
  });
}

import { describe, expect, it } from 'vitest';
import { createSwitchboard, type SwitchboardOptions } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';

describe('createSwitchboard', () => {
  it('sweeps expired records periodically when the storage can, and stops on close', async () => {
    const sweeps: number[] = [];
    const storage = {
      ...createMemoryStorage(),
      sweep: async ({ now }: { now: number }) => void sweeps.push(now),
    };
    const switchboard = createSwitchboard({ storage, sweepIntervalMs: 5 });
    switchboard.start();
    await expect.poll(() => sweeps.length).toBeGreaterThanOrEqual(2);
    await switchboard.close();
    const after = sweeps.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sweeps.length).toBe(after);
  });

  it('publishes a committed change to the live bus without an explicit flush once started', async () => {
    const switchboard = createSwitchboard();
    const received = new Promise<string>((resolve) => switchboard.bus.subscribe((e) => resolve(e.type)));
    switchboard.start();
    await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    expect(await received).toBe('client.created');
    await switchboard.close();
  });

  it('gives every block the storage it was given once: a sub-config cannot name a dependency it would ignore', async () => {
    const storage = createMemoryStorage();
    const elsewhere = createMemoryStorage();
    const options: SwitchboardOptions = {
      storage,
      oauth: { adminApiKey: 'sbk_switchboard_test_admin_key_0123456789' },
      // @ts-expect-error storage is the switchboard's, given at the top: here it would be ignored
      webhooks: { storage: elsewhere },
    };
    const switchboard = createSwitchboard(options);
    const answer = await switchboard.fetch(
      new Request('http://localhost/api/v1/webhook-endpoints', {
        method: 'POST',
        headers: {
          authorization: 'Bearer sbk_switchboard_test_admin_key_0123456789',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ url: 'https://hooks.example.com/in', eventTypes: ['client.*'] }),
      }),
    );
    expect(answer.status).toBe(201);
    const all = { offset: 0, limit: 10 };
    expect((await storage.webhooks.endpoints.list(all)).total).toBe(1);
    expect((await elsewhere.webhooks.endpoints.list(all)).total).toBe(0);
    await switchboard.close();
  });
});

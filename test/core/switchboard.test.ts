import { describe, expect, it } from 'vitest';
import { createSwitchboard, type SwitchboardOptions, silentLogger, trustEveryone } from '../../src/index.js';
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
    // Every sub-config is settings only: the runtime's parts and the other blocks' are given at the top.
    const named: SwitchboardOptions[] = [
      // @ts-expect-error the clock is the runtime's
      { oauth: { clock: { now: () => 0 } } },
      // @ts-expect-error the logger is the runtime's
      { graphql: { logger: silentLogger } },
      // @ts-expect-error the storage is the runtime's
      { rest: { storage } },
      // @ts-expect-error the storage is the runtime's
      { console: { storage } },
      // @ts-expect-error the telemetry is the runtime's
      { rateLimits: { telemetry: undefined } },
      // @ts-expect-error outbound HTTP is the runtime's: fetch at the top
      { webhooks: { fetch } },
      // @ts-expect-error who is authenticated is said once, at the top
      { graphql: { authenticate: trustEveryone } },
    ];
    expect(named).toHaveLength(7);
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

  it('sends webhook attempts through the fetch given at the top, the one runtime every block shares', async () => {
    const posted: string[] = [];
    const switchboard = createSwitchboard({
      authenticate: trustEveryone,
      fetch: async (input) => {
        posted.push(String(input));
        return new Response('ok');
      },
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
    });
    await switchboard.webhooks!.admin.createEndpoint({
      url: 'http://127.0.0.1:9/hooks',
      eventTypes: ['client.created'],
    });
    await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    await switchboard.relay.flush();
    await switchboard.webhooks!.dispatcher.runOnce();
    expect(posted).toEqual(['http://127.0.0.1:9/hooks']);
    await switchboard.close();
  });
});

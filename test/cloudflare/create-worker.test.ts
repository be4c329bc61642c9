/** The Cloudflare adapter's handlers, on a stand-in switchboard that records what they call. */
import { describe, expect, it } from 'vitest';
import { createWorker, type WorkerSwitchboard } from '../../src/cloudflare/index.js';
import { createSwitchboard } from '../../src/index.js';

function standIn(options: { relayFails?: boolean; sweep?: boolean } = {}) {
  const calls: string[] = [];
  const switchboard: WorkerSwitchboard = {
    fetch: async (request) => {
      calls.push(`fetch ${request.method}`);
      return new Response(null, { status: 204 });
    },
    relay: {
      flush: async () => {
        calls.push('flush');
        if (options.relayFails) throw new Error('storage down');
        return 1;
      },
    },
    webhooks: {
      dispatcher: {
        runOnce: async () => {
          calls.push('runOnce');
          return 1;
        },
      },
    },
    storage: options.sweep ? { sweep: async () => void calls.push('sweep') } : {},
  };
  const waited: Promise<unknown>[] = [];
  const ctx = { waitUntil: (promise: Promise<unknown>) => void waited.push(promise) };
  return { worker: createWorker(switchboard), calls, waited, ctx };
}

describe('createWorker', () => {
  it('after a write, relays and then delivers under waitUntil', async () => {
    const { worker, calls, waited, ctx } = standIn();
    const response = await worker.fetch(new Request('http://w/api/v1/clients', { method: 'POST' }), {}, ctx);
    expect(response.status).toBe(204);
    expect(waited).toHaveLength(1);
    await Promise.all(waited);
    expect(calls).toEqual(['fetch POST', 'flush', 'runOnce']);
  });

  it('refuses a WebSocket upgrade with 501 and says to subscribe over SSE', async () => {
    const { worker, calls, ctx } = standIn();
    const response = await worker.fetch(
      new Request('http://w/graphql', { headers: { upgrade: 'websocket' } }),
      {},
      ctx,
    );
    expect(response.status).toBe(501);
    expect(((await response.json()) as { detail: string }).detail).toContain('text/event-stream');
    expect(calls).toEqual([]);
  });

  it('after a read, starts no background work', async () => {
    const { worker, calls, waited, ctx } = standIn();
    for (const method of ['GET', 'HEAD', 'OPTIONS'])
      await worker.fetch(new Request('http://w/api/v1/clients', { method }), {}, ctx);
    expect(waited).toEqual([]);
    expect(calls).toEqual(['fetch GET', 'fetch HEAD', 'fetch OPTIONS']);
  });

  it('still sends the due deliveries when the relay fails, and reports the failure', async () => {
    const { worker, calls, waited, ctx } = standIn({ relayFails: true });
    await worker.fetch(new Request('http://w/graphql', { method: 'POST' }), {}, ctx);
    await expect(waited[0]).rejects.toThrow('storage down');
    expect(calls).toEqual(['fetch POST', 'flush', 'runOnce']);
  });

  it('on a cron trigger, relays, delivers and sweeps the storage', async () => {
    const { worker, calls, ctx } = standIn({ sweep: true });
    await worker.scheduled({ cron: '* * * * *', scheduledTime: Date.now() }, {}, ctx);
    expect(calls.sort()).toEqual(['flush', 'runOnce', 'sweep']);
  });

  it('takes what createSwitchboard returns', async () => {
    const switchboard = createSwitchboard({ webhooks: false, console: false });
    const worker = createWorker(switchboard);
    const waited: Promise<unknown>[] = [];
    const response = await worker.fetch(
      new Request('http://w/healthz', { method: 'POST' }),
      {},
      { waitUntil: (promise) => void waited.push(promise) },
    );
    expect(response.status).toBe(200);
    await Promise.all(waited);
  });

  it("charges a caller without credentials to the address Cloudflare's edge gives (CF-Connecting-IP)", async () => {
    const switchboard = createSwitchboard({
      webhooks: false,
      console: false,
      rateLimits: { rules: { read: { limit: 1, windowMs: 60_000 } } },
    });
    const worker = createWorker(switchboard);
    const ctx = { waitUntil: () => {} };
    const from = (address: string) =>
      worker.fetch(
        new Request('http://w/api/v1/clients', { headers: { 'cf-connecting-ip': address } }),
        {},
        ctx,
      );
    expect((await from('198.51.100.7')).status).toBe(401);
    expect((await from('198.51.100.7')).status).toBe(429);
    expect((await from('203.0.113.9')).status).toBe(401);
  });
});

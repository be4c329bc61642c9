/**
 * Cloudflare's runtime, workerd, serving the built package: the Worker of test/cloudflare/worker.ts
 * (a switchboard made in the module's global scope, served through `switchboard-kit/cloudflare`) bundled
 * as wrangler would, then spoken to over real HTTP on loopback by the runtime smoke suite's shared checks
 * (test/runtimes/smoke-checks.mjs, run in this process) and by what only a Worker does: no WebSocket,
 * Web Crypto of its own, retries on a cron trigger. Webhooks go to a receiver in this test.
 */

import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/index.js';
import { ALLOWED_IN_GLOBAL_SCOPE } from '../runtimes/global-scope.js';
import { handshake, smokeChecks } from '../runtimes/smoke-checks.mjs';
import { expectSmokeFindings } from '../runtimes/smoke-findings.js';
import { until } from '../support/until.js';
import {
  root,
  startWorkerd,
  WORKERD_ADMIN_KEY,
  type Workerd,
  type WorkerdOptions,
  workerdBinary,
} from '../support/workerd.js';

interface Delivery {
  readonly status: string;
  readonly attempts: number;
  readonly nextAttemptAt: string | null;
}

/** What the webhook receiver got: the path, the event, whether the signature checked out, its answer. */
interface Received {
  readonly path: string;
  readonly event: string;
  readonly verified: boolean;
  readonly answered: number;
}

/**
 * Where the package runs: the newest compatibility date with no flag, and the oldest with
 * `nodejs_compat`, which gives `process` (a default from 2026-08-04), whose `versions`
 * fast-json-stringify reads as it loads (graphql-jit imports it); both on the newest workerd, and the
 * oldest on the oldest workerd that knows that date (devDependency `workerd-oldest`, the build wrangler
 * 4.38.0 ships), which refuses more in a global scope (an AbortController, a stream's write side).
 */
const RUNTIMES: readonly (WorkerdOptions & { readonly name: string })[] = [
  { name: 'the newest compatibility date, no flag' },
  {
    name: '2025-09-15 with nodejs_compat',
    compatibilityDate: '2025-09-15',
    compatibilityFlags: ['nodejs_compat'],
  },
  {
    name: `the oldest workerd, ${workerdBinary('workerd-oldest').version}: 2025-09-15 with nodejs_compat`,
    workerd: 'workerd-oldest',
    compatibilityDate: '2025-09-15',
    compatibilityFlags: ['nodejs_compat'],
  },
];

/** workerd's note that a finished request left a promise reaction behind (see the last test). */
const CROSS_CONTEXT_NOTE = /^.*IoContext dropped queued cross-context actions when destroyed.*\n/gm;

describe.each(RUNTIMES)('Cloudflare Workers (workerd), $name', (runtime) => {
  let workerd: Workerd;
  let receiver: Server;
  let receiverUrl = '';
  const secrets = new Map<string, string>();
  const received: Received[] = [];
  /** What the smoke checks' endpoint (path `/smoke`) got, for them to verify. */
  const smokeHooks: { headers: IncomingMessage['headers']; body: string }[] = [];
  /** Paths that answer 500 to their first request. */
  const flaky = new Set(['/flaky']);

  beforeAll(async () => {
    expect(existsSync(`${root}dist/cloudflare/index.js`), 'run `npm run build` first').toBe(true);
    receiver = createServer(async (request, response) => {
      const body = await text(request);
      const path = request.url ?? '/';
      if (path === '/smoke') {
        smokeHooks.push({ headers: request.headers, body });
        return response.writeHead(204).end();
      }
      const headers = request.headers as Record<string, string>;
      const check = await verifyWebhook({ body, headers, secrets: [secrets.get(path) ?? ''] });
      const answered = flaky.delete(path) ? 500 : 204;
      received.push({ path, event: JSON.parse(body).event, verified: check.ok, answered });
      response.writeHead(answered).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    workerd = await startWorkerd(runtime);
  }, 45_000);

  afterAll(async () => {
    await workerd?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${workerd.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${WORKERD_ADMIN_KEY}`,
        'content-type': 'application/json',
        ...init.headers,
      },
    });
    return { status: response.status, body: await response.json() };
  };
  const createClientRecord = (email: string) =>
    api('/api/v1/clients', { method: 'POST', body: JSON.stringify({ name: 'Worker Client', email }) });
  const createEndpoint = async (path: string, eventTypes: string[]) => {
    const created = await api('/api/v1/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: `${receiverUrl}${path}`, eventTypes }),
    });
    expect(created.status).toBe(201);
    secrets.set(path, created.body.secret);
    return created.body.id as string;
  };
  const deliveriesOf = async (endpointId: string): Promise<Delivery[]> =>
    (await api(`/api/v1/webhook-endpoints/${endpointId}/deliveries`)).body.items;

  it('makes the switchboard in the global scope, with its admin key from a binding', async () => {
    const health = await fetch(`${workerd.url}/healthz`);
    expect(health.status).toBe(200);
    const unauthenticated = await fetch(`${workerd.url}/api/v1/clients`);
    expect(unauthenticated.status).toBe(401);
    expect((await api('/api/v1/clients')).status).toBe(200);
  });

  it('runs the runtime smoke suite, subscribing over SSE: REST, GraphQL, OAuth, signed webhooks', async () => {
    // The first test that writes: the checks expect a Worker with no records yet. No cron is fired: the
    // webhooks go out under the adapter's waitUntil after each write.
    const findings = await smokeChecks({
      base: workerd.url,
      key: WORKERD_ADMIN_KEY,
      receiverUrl: `${receiverUrl}/smoke`,
      hooks: smokeHooks,
      runtime: 'workerd',
      transport: 'sse',
    });
    expectSmokeFindings(findings, { runtime: 'workerd', transport: 'sse' });
  }, 30_000);

  it('answers a WebSocket handshake with 501, pointing to subscriptions over SSE', async () => {
    const refused = await handshake(`${workerd.url}/graphql`, 'graphql-transport-ws');
    expect(refused).toMatchObject({ status: 501, type: 'application/problem+json' });
    expect(JSON.parse(refused.body).detail).toContain('Accept: text/event-stream');
  });

  it('refuses in a global scope nothing that test/runtimes/global-scope.ts allows', async () => {
    // The module-scope test refuses the rest around createSwitchboard, so a Worker can make it there.
    const { refused } = (await (await fetch(`${workerd.probeUrl}/global-scope`)).json()) as {
      refused: string[];
    };
    expect(refused).toEqual(expect.arrayContaining(['setTimeout', 'crypto.getRandomValues', 'fetch']));
    expect(refused.filter((name) => name in ALLOWED_IN_GLOBAL_SCOPE)).toEqual([]);
  });

  it("signs and verifies webhooks with workerd's Web Crypto", async () => {
    const response = await fetch(`${workerd.probeUrl}/signature`);
    expect(await response.json()).toEqual({ signed: true, tampered: 'mismatch' });
  });

  it('makes, seals, signs with and verifies an Ed25519 webhook key (v1a) on workerd', async () => {
    const response = await fetch(`${workerd.probeUrl}/signature-ed25519`);
    expect(await response.json()).toEqual({ signature: 'v1a,', signed: true, tampered: 'mismatch' });
  });

  it('retries a failed delivery on a cron trigger, and not before', async () => {
    const endpointId = await createEndpoint('/flaky', ['client.updated']);
    const created = await createClientRecord('retried@example.com');
    const updated = await api(`/api/v1/clients/${created.body.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ city: 'Lisbon' }),
    });
    expect(updated.status).toBe(200);
    await until(() => received.some((r) => r.path === '/flaky'), 'the first attempt');
    // Retried after the schedule's first delay (5 s ± 20%); GETs below start no background work.
    let failed: Delivery | undefined;
    await until(async () => {
      [failed] = await deliveriesOf(endpointId);
      return failed?.attempts === 1;
    }, 'the failed attempt to be recorded');
    expect(failed).toMatchObject({ status: 'pending', attempts: 1 });
    const due = Date.parse(failed!.nextAttemptAt!);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 250));
    // Due now, and nothing in the Worker wakes up by itself.
    expect(received.filter((r) => r.path === '/flaky')).toHaveLength(1);

    const cron = await fetch(`${workerd.probeUrl}/scheduled`, { method: 'POST' });
    expect(await cron.json()).toEqual({ outcome: 'ok', noRetry: false });
    // `scheduled` resolves once the dispatcher's run is done: the retry has been made.
    expect(received.filter((r) => r.path === '/flaky')).toEqual([
      { path: '/flaky', event: 'client.updated', verified: true, answered: 500 },
      { path: '/flaky', event: 'client.updated', verified: true, answered: 204 },
    ]);
    expect(await deliveriesOf(endpointId)).toMatchObject([{ status: 'succeeded', attempts: 2 }]);
  }, 30_000);

  it('logs no warning nor error along the way', () => {
    // Writes in a row share the relay's flush and the dispatcher's deliveries in flight (state of the
    // isolate); workerd notes when a request ends with a reaction to another's promise still queued.
    expect(workerd.output().replace(CROSS_CONTEXT_NOTE, '')).toBe('');
  });
});

describe('Cloudflare Workers (workerd) before nodejs_compat was the default', () => {
  it('cannot load the Worker without nodejs_compat: fast-json-stringify (graphql-jit) reads process.versions', async () => {
    await expect(startWorkerd({ compatibilityDate: '2026-08-03' })).rejects.toThrow(
      /process is not defined[\s\S]*fast-json-stringify/,
    );
  });
});

function text(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

/**
 * Cloudflare's runtime, workerd, serving the built package: the Worker of test/cloudflare/worker.ts
 * (a switchboard made in the module's global scope, served through `switchboard-kit/cloudflare`) bundled
 * as wrangler would, then spoken to over real HTTP on loopback. Webhooks go to a receiver in this test.
 */

import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/webhooks/index.js';
import { until } from '../support/until.js';
import {
  root,
  startWorkerd,
  WORKERD_ADMIN_KEY,
  type Workerd,
  type WorkerdOptions,
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
 * fast-json-stringify reads as it loads (graphql-jit imports it).
 */
const RUNTIMES: readonly (WorkerdOptions & { readonly name: string })[] = [
  { name: 'the newest compatibility date, no flag' },
  {
    name: '2025-09-15 with nodejs_compat',
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
  /** Paths that answer 500 to their first request. */
  const flaky = new Set(['/flaky']);

  beforeAll(async () => {
    expect(existsSync(`${root}dist/cloudflare/index.js`), 'run `npm run build` first').toBe(true);
    receiver = createServer(async (request, response) => {
      const body = await text(request);
      const path = request.url ?? '/';
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
  const graphql = (query: string) =>
    api('/graphql', {
      method: 'POST',
      headers: { accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query }),
    });
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

  it('serves REST: create, read and list with the API key', async () => {
    const created = await createClientRecord('rest@example.com');
    expect(created.status).toBe(201);
    const read = await api(`/api/v1/clients/${created.body.id}`);
    expect(read).toMatchObject({ status: 200, body: { email: 'rest@example.com' } });
    const list = await api('/api/v1/clients');
    expect(list.status).toBe(200);
    expect(list.body.items.map((c: { email: string }) => c.email)).toContain('rest@example.com');
  });

  it('answers a GraphQL query and a mutation', async () => {
    await createClientRecord('graphql@example.com');
    const query = await graphql('{ clients(limit: 100) { email } }');
    expect(query.status).toBe(200);
    expect(query.body.data.clients).toContainEqual({ email: 'graphql@example.com' });
    const mutation = await graphql(
      'mutation { sendMessage(input: { chatbotId: "cf-bot", visitorId: "v0", content: "hello" }) { content } }',
    );
    expect(mutation.body).toEqual({ data: { sendMessage: { content: 'hello' } } });
  });

  it('streams a subscription over SSE: a message created by another request reaches it', async () => {
    let opened = false;
    const sse = createClient({
      url: `${workerd.url}/graphql`,
      headers: { authorization: `Bearer ${WORKERD_ADMIN_KEY}` },
      retryAttempts: 0,
      // The stream is open once workerd sends its first bytes; only then is the mutation sent.
      on: {
        connected: () => {
          opened = true;
        },
      },
    });
    const results = sse.iterate({
      query: 'subscription { onNewMessage(chatbotId: "cf-sse") { content visitor_id } }',
    });
    const first = results.next();
    await until(() => opened, 'the event stream to open');
    const sent = await graphql(
      'mutation { sendMessage(input: { chatbotId: "cf-sse", visitorId: "v1", content: "hi from workerd" }) { content } }',
    );
    expect(sent.status).toBe(200);
    expect((await first).value).toEqual({
      data: { onNewMessage: { content: 'hi from workerd', visitor_id: 'v1' } },
    });
    await results.return?.();
    sse.dispose();
  });

  it('publishes OAuth discovery and issues a client-credentials token that REST accepts', async () => {
    const discovery = await api('/.well-known/oauth-authorization-server');
    expect(discovery.status).toBe(200);
    expect(new URL(discovery.body.token_endpoint).pathname).toBe('/oauth/token');
    expect(discovery.body.grant_types_supported).toContain('client_credentials');
    // Registered through the admin route: the test is outside the Worker.
    const registered = await api('/oauth/clients', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Worker machine',
        type: 'confidential',
        scopes: ['crm.clients.read'],
        grantTypes: ['client_credentials'],
      }),
    });
    expect(registered.status).toBe(201);
    const tokenResponse = await fetch(`${workerd.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${registered.body.id}:${registered.body.secret}`)}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'crm.clients.read' }),
    });
    const token = await tokenResponse.json();
    expect(tokenResponse.status).toBe(200);
    expect(token).toMatchObject({ token_type: 'Bearer', scope: 'crm.clients.read' });
    const read = await fetch(`${workerd.url}/api/v1/clients`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(read.status).toBe(200);
    const write = await fetch(`${workerd.url}/api/v1/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Nope', email: 'nope@example.com' }),
    });
    expect(write.status).toBe(403);
  });

  it("signs and verifies webhooks with workerd's Web Crypto", async () => {
    const response = await fetch(`${workerd.probeUrl}/signature`);
    expect(await response.json()).toEqual({ signed: true, tampered: 'mismatch' });
  });

  it("delivers a write's webhook right after the response, under waitUntil", async () => {
    await createEndpoint('/hooks', ['client.created']);
    const created = await createClientRecord('hooked@example.com');
    expect(created.status).toBe(201);
    // No timer runs in a Worker: the adapter's waitUntil relays the event and sends the delivery.
    await until(() => received.some((r) => r.path === '/hooks'), 'the webhook delivery');
    expect(received.filter((r) => r.path === '/hooks')).toEqual([
      { path: '/hooks', event: 'client.created', verified: true, answered: 204 },
    ]);
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

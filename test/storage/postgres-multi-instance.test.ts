/**
 * Three Switchboard processes on one PostgreSQL database, as behind a load balancer: subscriptions
 * across instances, 1,000 webhook events through a flaky receiver, and an instance killed with SIGKILL
 * while it holds deliveries.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { type RunningExample, startExampleServer } from '../support/example-server.js';
import { until } from '../support/until.js';

/** The admin API key every instance is started with (SWITCHBOARD_API_KEY). */
const ADMIN_KEY = 'sbk_multi_instance_test_key_0123456789abcdefghij';
const TOKEN = `Bearer ${ADMIN_KEY}`;
const LEASE_MS = 4_000;

interface Instance extends RunningExample {
  /** The webhook worker id the instance printed. */
  readonly worker: string;
}

/** One example server (`npm start`) on the shared database, with short webhook timings. */
async function startInstance(databaseUrl: string): Promise<Instance> {
  const server = await startExampleServer({
    DATABASE_URL: databaseUrl,
    SWITCHBOARD_API_KEY: ADMIN_KEY,
    POLL_INTERVAL_MS: '100',
    WEBHOOK_LEASE_MS: String(LEASE_MS),
    WEBHOOK_RETRY_DELAYS_MS: '0,100,200,300,400,500,600,700',
    // A thousand writes in seconds with one key: this measures delivery, not the request budgets.
    RATE_LIMITS: 'false',
  });
  const worker = /Webhook worker +(\S+)/.exec(server.output())?.[1];
  if (!worker) throw new Error(`the instance printed no webhook worker id:\n${server.output()}`);
  return { ...server, worker };
}

/**
 * A webhook receiver that fails the first attempt of every third event with 503, can hold its answers
 * (to catch a sender mid-delivery), and notes any event that arrives while it is already in flight.
 */
function flakyReceiver() {
  const successes = new Map<string, number>();
  const attempts = new Map<string, number>();
  const inFlight = new Set<string>();
  const overlaps: string[] = [];
  const state = { holdMs: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const payload = JSON.parse(body) as { data: { id: string; content: string } };
      const id = payload.data.id;
      if (inFlight.has(id)) overlaps.push(id);
      inFlight.add(id);
      res.on('close', () => inFlight.delete(id));
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      const fail = attempt === 1 && Number(payload.data.content.split(' ').pop()) % 3 === 0;
      setTimeout(
        () => {
          if (res.destroyed) return; // the sender went away (killed): nothing was delivered
          res.writeHead(fail ? 503 : 200).end(fail ? 'try later' : 'ok');
          if (!fail) successes.set(id, (successes.get(id) ?? 0) + 1);
        },
        fail ? 1 : state.holdMs,
      );
    });
  });
  return { server, successes, attempts, overlaps, state };
}

describe('three instances on one PostgreSQL', () => {
  let db: TestDatabase;
  let instances: Instance[];
  const receiver = flakyReceiver();

  const api = async (instance: Instance, path: string, body?: unknown): Promise<Response> =>
    fetch(`${instance.url}/api/v1${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: TOKEN, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  const send = async (instance: Instance, chatbotId: string, content: string): Promise<string> => {
    const response = await api(instance, `/chatbots/${chatbotId}/messages`, { visitorId: 'v1', content });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    // All three start (and migrate) at the same time.
    instances = await Promise.all([1, 2, 3].map(() => startInstance(db.url)));
    const port = (receiver.server.address() as AddressInfo).port;
    const registered = await api(instances[0]!, '/webhook-endpoints', {
      url: `http://127.0.0.1:${port}/hooks`,
      eventTypes: ['message.created'],
    });
    expect(registered.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    for (const instance of instances ?? []) instance.process.kill('SIGTERM');
    await Promise.all((instances ?? []).map((i) => i.exited));
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
    await db?.drop();
  });

  it('pushes a message created through REST on instance 3 to a subscription on instance 1', async () => {
    const client = createClient({
      url: `${instances[0]!.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { Authorization: TOKEN },
    });
    const received: { content: string; visitor_id: string }[] = [];
    const stop = client.subscribe<{ onNewMessage: { content: string; visitor_id: string } }>(
      { query: 'subscription { onNewMessage(chatbotId: "bot-cross") { content visitor_id timestamp } }' },
      {
        next: ({ data }) => data && received.push(data.onNewMessage),
        error: () => {},
        complete: () => {},
      },
    );
    // The subscription becomes active shortly after the socket opens: send until one arrives.
    const sent: string[] = [];
    await until(
      async () => {
        if (received.length > 0) return true;
        const content = `from instance 3 #${sent.length + 1}`;
        sent.push(content);
        await send(instances[2]!, 'bot-cross', content);
        await new Promise((resolve) => setTimeout(resolve, 150));
        return received.length > 0;
      },
      'the subscription to receive a message',
      90_000,
    );
    expect(sent).toContain(received[0]!.content);
    expect(received[0]!.visitor_id).toBe('v1');
    stop();
    await client.dispose();
  });

  it('delivers 1,000 events created across instances, each one, none twice at once, through a flaky receiver', async () => {
    const ids: string[] = [];
    const total = 1_000;
    let next = 0;
    await Promise.all(
      Array.from({ length: 24 }, async () => {
        for (let n = next++; n < total; n = next++) {
          ids.push(await send(instances[n % 3]!, 'bot-load', `load ${n}`));
        }
      }),
    );
    await until(() => ids.every((id) => receiver.successes.has(id)), 'every event to be delivered', 150_000);

    expect(ids.filter((id) => receiver.successes.get(id) !== 1)).toEqual([]);
    expect(receiver.overlaps).toEqual([]);
    const retried = ids.filter((id) => (receiver.attempts.get(id) ?? 0) > 1);
    expect(retried.length).toBeGreaterThanOrEqual(Math.floor(total / 3));
    // The receiver sees a delivery before its sender records the 200 (outcomes are written in batches):
    // wait for the records, then check them.
    const statuses = async () =>
      (
        await db.pool.query<{ status: string; n: string }>(
          `SELECT status, count(*) AS n FROM switchboard_webhook_deliveries d
           JOIN switchboard_resources m ON m.resource = 'message' AND d.payload LIKE '%' || m.id || '%'
           WHERE m.data ->> 'chatbotId' = 'bot-load' GROUP BY status`,
        )
      ).rows;
    await until(
      async () => (await statuses()).every((row) => row.status !== 'pending'),
      'the senders to record every delivery',
      30_000,
    );
    expect(await statuses()).toEqual([{ status: 'succeeded', n: String(total) }]);
  }, 200_000);

  it('completes the deliveries of an instance killed with SIGKILL once their lease ends', async () => {
    receiver.state.holdMs = 1_500;
    const ids: string[] = [];
    for (let n = 0; n < 30; n++) ids.push(await send(instances[n % 3]!, 'bot-kill', `kill ${n * 3 + 1}`));
    // The victim is whichever instance first holds deliveries: the per-endpoint limit is shared, so a
    // given instance may never win a slot while the others keep theirs busy.
    let victim: Instance | undefined;
    let held: string[] = [];
    await until(
      async () => {
        const { rows } = await db.pool.query<{ id: string; leased_by: string }>(
          "SELECT id, leased_by FROM switchboard_webhook_deliveries WHERE leased_by IS NOT NULL AND status = 'pending'",
        );
        victim = instances.find((i) => rows.some((r) => r.leased_by === i.worker));
        held = rows.filter((r) => r.leased_by === victim?.worker).map((r) => r.id);
        return held.length > 0;
      },
      'an instance to hold deliveries',
      90_000,
    );
    if (!victim) throw new Error('no victim');
    victim.process.kill('SIGKILL');
    await victim.exited;
    receiver.state.holdMs = 0;

    await until(
      () => ids.every((id) => receiver.successes.has(id)),
      'the survivors to deliver everything',
      90_000,
    );
    expect(ids.filter((id) => receiver.successes.get(id) !== 1)).toEqual([]);
    expect(receiver.overlaps).toEqual([]);
    // The receiver sees a delivery before its sender records the 200: wait for the record, then check it.
    const heldRows = async () =>
      (
        await db.pool.query<{ status: string; leased_by: string | null }>(
          'SELECT status, leased_by FROM switchboard_webhook_deliveries WHERE id = ANY($1)',
          [held],
        )
      ).rows;
    await until(
      async () => (await heldRows()).every((r) => r.status !== 'pending'),
      'the survivors to record the deliveries they took over',
      90_000,
    );
    const rows = await heldRows();
    expect(rows).toHaveLength(held.length);
    expect(rows.every((r) => r.status === 'succeeded' && r.leased_by === null)).toBe(true);
  }, 120_000);
});

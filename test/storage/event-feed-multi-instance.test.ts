/**
 * The event feed across three Switchboard processes on one PostgreSQL database, as behind a load
 * balancer, while all three take writes: a consumer reads pages with `after` on one instance, streams
 * on a second and disconnects mid-stream, resumes with `Last-Event-ID` on the third, and has every
 * event exactly once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { type RunningExample, startExampleServer } from '../support/example-server.js';
import { sseFrames } from '../support/sse.js';

const ADMIN_KEY = 'sbk_event_feed_multi_instance_key_0123456789abcdef';
const TOKEN = `Bearer ${ADMIN_KEY}`;
const TOTAL = 300;
const FEED = '/api/v2/events?types=client.created';

interface Item {
  event_id: string;
  data: { id: string };
  cursor: string;
}

describe('the event feed on three instances sharing PostgreSQL', () => {
  let db: TestDatabase;
  let instances: RunningExample[];

  beforeAll(async () => {
    db = await createTestDatabase();
    instances = await Promise.all(
      [1, 2, 3].map(() =>
        startExampleServer({
          DATABASE_URL: db.url,
          SWITCHBOARD_API_KEY: ADMIN_KEY,
          POLL_INTERVAL_MS: '100',
          RATE_LIMITS: 'false',
        }),
      ),
    );
  }, 60_000);

  afterAll(async () => {
    for (const instance of instances ?? []) instance.process.kill('SIGTERM');
    await Promise.all((instances ?? []).map((i) => i.exited));
    await db?.drop();
  });

  const get = (instance: RunningExample, path: string, headers: Record<string, string> = {}) =>
    fetch(`${instance.url}${path}`, { headers: { authorization: TOKEN, ...headers } });

  it('gives every event exactly once, in order, across pages, a cut stream and its resumption', async () => {
    // Writers on every instance, all the while the consumer reads.
    const created: string[] = [];
    let next = 0;
    const writing = Promise.all(
      Array.from({ length: 12 }, async () => {
        for (let n = next++; n < TOTAL; n = next++) {
          const response = await fetch(`${instances[n % 3]!.url}/api/v2/clients`, {
            method: 'POST',
            headers: { authorization: TOKEN, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `Feed ${n}`, email: `feed-${n}@example.com` }),
          });
          expect(response.status).toBe(201);
          created.push(((await response.json()) as { id: string }).id);
        }
      }),
    );

    const received: Item[] = [];
    // 1. Pages with `after` on instance 1, until a few pages are in.
    let after: string | undefined;
    while (received.length < 40) {
      const response = await get(instances[0]!, `${FEED}&limit=15${after ? `&after=${after}` : ''}`);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { items: Item[]; next: string };
      received.push(...page.items);
      after = page.next;
      if (page.items.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // 2. A stream on instance 2 from there, cut after some events.
    const stream = await get(instances[1]!, `${FEED}&after=${after}`, { accept: 'text/event-stream' });
    expect(stream.status).toBe(200);
    const frames = sseFrames(stream);
    let lastId: string | undefined;
    for (let i = 0; i < 60; i++) {
      const frame = (await frames.next()).value!;
      received.push(JSON.parse(frame.data) as Item);
      lastId = frame.id;
    }
    await frames.return(undefined);

    // 3. Resumed on instance 3 with Last-Event-ID until every event created is in.
    await writing;
    const resumed = await get(instances[2]!, FEED, { accept: 'text/event-stream', 'last-event-id': lastId! });
    expect(resumed.status).toBe(200);
    const more = sseFrames(resumed);
    const deadline = setTimeout(() => void more.return(undefined), 30_000);
    while (received.length < TOTAL) {
      const step = await more.next();
      if (step.done) break;
      received.push(JSON.parse(step.value.data) as Item);
    }
    clearTimeout(deadline);
    await more.return(undefined);

    const ids = received.map((item) => item.data.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...created].sort());
    // In order: as one reader from the start sees the feed now.
    const all: string[] = [];
    for (let from: string | undefined; ; ) {
      const response = await get(instances[0]!, `${FEED}&limit=100${from ? `&after=${from}` : ''}`);
      const page = (await response.json()) as { items: Item[]; next: string };
      all.push(...page.items.map((item) => item.data.id));
      from = page.next;
      if (page.items.length === 0) break;
    }
    expect(ids).toEqual(all);
  }, 120_000);
});

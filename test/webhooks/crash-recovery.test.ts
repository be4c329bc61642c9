import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { harness, listen, orderEvent } from './support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const T0 = Date.UTC(2026, 0, 1);

let db: TestDatabase;
let storage: PostgresStorage;
beforeAll(async () => {
  db = await createTestDatabase();
  storage = createPostgresStorage({ pool: db.pool });
  await storage.migrate();
});
afterAll(() => db?.drop());

/** A dispatcher child process; `passes(n)` resolves once it has completed n more passes. */
function startDispatcher(clockFile: string, workerId: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/webhooks/fixtures/dispatcher-process.ts', db.url, clockFile, workerId],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let count = 0;
  const waiters: { target: number; resolve: () => void }[] = [];
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    count = (output.match(/^pass /gm) ?? []).length;
    for (const w of waiters.splice(0)) (count >= w.target ? w.resolve : () => waiters.push(w))();
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  return {
    passes: (n: number) => new Promise<void>((resolve) => waiters.push({ target: count + n, resolve })),
    output: () => output,
    kill: async () => {
      child.kill('SIGKILL');
      return exited;
    },
  };
}

describe('a dispatcher process killed mid-schedule (PostgreSQL)', () => {
  it('resumes after a restart and delivers every pending event exactly as scheduled', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-crash-'));
    const clockFile = join(dir, 'clock');
    const setClock = (ms: number) => writeFile(clockFile, String(ms));
    await setClock(T0);

    const h = harness(storage);
    const events = Array.from({ length: 10 }, () => orderEvent());
    const hanging = events[9]!.id;
    const seen = new Map<string, number>();
    const log: { eventId: string; timestamp: number; status: number }[] = [];
    const server = await listen(async (request) => {
      const eventId = request.headers.get('x-event-id')!;
      const n = (seen.get(eventId) ?? 0) + 1;
      seen.set(eventId, n);
      if (eventId === hanging && n === 1) await new Promise(() => {}); // the crash hits this one in flight
      const status = n === 1 ? 500 : 200;
      log.push({ eventId, timestamp: Number(request.headers.get('x-timestamp')), status });
      return new Response(null, { status });
    });
    await h.admin.createEndpoint({ url: `${server.url}/hooks`, eventTypes: ['order.*'] });
    for (const event of events) await h.fanOut(event);

    const first = startDispatcher(clockFile, 'first');
    // Every first attempt made and recorded: nine failed (500), one still in flight.
    const recorded = async () =>
      (await storage.webhooks.deliveries.list({ status: 'pending' }, { offset: 0, limit: 100 })).items;
    await expect
      .poll(
        async () => (await recorded()).filter((d) => d.attempts === 1).length + (seen.has(hanging) ? 1 : 0),
        { timeout: 15_000 },
      )
      .toBe(10);
    expect(await first.kill(), first.output()).toBe('SIGKILL');

    const rows = await storage.webhooks.deliveries.list({}, { offset: 0, limit: 100 });
    const byEvent = new Map(rows.items.map((d) => [d.eventId, d]));
    expect(byEvent.get(hanging)).toMatchObject({ status: 'pending', attempts: 0, leasedBy: 'first' });
    for (const e of events.slice(0, 9)) {
      expect(byEvent.get(e.id)).toMatchObject({
        status: 'pending',
        attempts: 1,
        nextAttemptAt: T0 + 5000,
      });
    }

    const second = startDispatcher(clockFile, 'second');
    await setClock(T0 + 4_999);
    await second.passes(3);
    expect(log).toHaveLength(9); // nothing is due yet: the schedule survived the crash

    await setClock(T0 + 5_000);
    await expect.poll(() => log.length, { timeout: 15_000 }).toBe(18);
    expect(log.slice(9).every((r) => r.status === 200 && r.timestamp === (T0 + 5_000) / 1000)).toBe(true);

    // The delivery that was in flight is held by the dead worker's lease until it runs out.
    await setClock(T0 + 59_999);
    await second.passes(3);
    expect(seen.get(hanging)).toBe(1);
    await setClock(T0 + 60_000);
    await expect.poll(() => seen.get(hanging), { timeout: 15_000 }).toBe(2);
    await second.passes(2);
    await second.kill();

    for (const event of events)
      expect(log.filter((r) => r.eventId === event.id && r.status === 200)).toHaveLength(1);
    const after = await storage.webhooks.deliveries.list({}, { offset: 0, limit: 100 });
    expect(after.items.every((d) => d.status === 'succeeded')).toBe(true);
  }, 60_000);

  it('lets two dispatcher processes on one database deliver each event once', async () => {
    await db.truncate();
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-two-'));
    const clockFile = join(dir, 'clock');
    await writeFile(clockFile, String(T0));
    const h = harness(storage);
    const counts = new Map<string, number>();
    const server = await listen(async (request) => {
      const id = request.headers.get('x-event-id')!;
      counts.set(id, (counts.get(id) ?? 0) + 1);
      return new Response('ok');
    });
    await h.admin.createEndpoint({ url: `${server.url}/hooks`, eventTypes: ['*'] });
    const events = Array.from({ length: 50 }, () => orderEvent());
    for (const event of events) await h.fanOut(event);
    const workers = [startDispatcher(clockFile, 'one'), startDispatcher(clockFile, 'two')];
    await expect.poll(() => counts.size, { timeout: 20_000 }).toBe(50);
    await Promise.all(workers.map((w) => w.passes(2)));
    await Promise.all(workers.map((w) => w.kill()));
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const done = await storage.webhooks.deliveries.list({ status: 'succeeded' }, { offset: 0, limit: 100 });
    expect(done.total).toBe(50);
  }, 60_000);
});

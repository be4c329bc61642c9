/**
 * The example server's demo data (`SEED_DEMO_DATA=true`) on a PostgreSQL database that several
 * instances share: each instance starts and serves, one after the other or at the same time, and the
 * database holds one copy of the demo data.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { type RunningExample, startExampleServer } from '../support/example-server.js';

const ADMIN_KEY = 'sbk_seed_test_admin_key_0123456789abcdefghijkl';

/** What one copy of the demo data holds (examples/server/README.md, "Demo data"). */
const ONE_COPY = { booking: 2, client: 3, conversation: 2, message: 3, order: 4 };

describe('demo data seeded by two instances on one PostgreSQL', () => {
  let db: TestDatabase;
  const running: RunningExample[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.stop()));
    await db.truncate();
  });
  afterAll(async () => {
    await db?.drop();
  });

  const start = async (): Promise<RunningExample> => {
    const server = await startExampleServer({
      DATABASE_URL: db.url,
      SEED_DEMO_DATA: 'true',
      SWITCHBOARD_API_KEY: ADMIN_KEY,
      RATE_LIMITS: 'false',
    });
    running.push(server);
    return server;
  };

  /** How many records of each resource the database holds. */
  const stored = async (): Promise<Record<string, number>> => {
    const { rows } = await db.pool.query<{ resource: string; count: string }>(
      'SELECT resource, count(*) FROM switchboard_resources GROUP BY resource',
    );
    return Object.fromEntries(rows.map((row) => [row.resource, Number(row.count)]));
  };

  /** The demo clients, as an instance serves them to the admin key. */
  const clientsOf = async (server: RunningExample): Promise<string[]> => {
    const response = await fetch(`${server.url}/api/v2/clients?limit=10`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { items: { name: string }[] }).items.map((c) => c.name);
  };

  it('seeds once when the second instance starts after the first, and both serve it', async () => {
    const first = await start();
    const second = await start();
    expect(second.output()).toContain('PostgreSQL (demo data loaded)');
    expect(await stored()).toEqual(ONE_COPY);
    for (const server of [first, second])
      expect(await clientsOf(server)).toEqual(['Ada Lovelace', 'Grace Hopper', 'Alan Turing']);
  });

  it('seeds once when both instances start at the same time, and both serve it', async () => {
    const both = await Promise.all([start(), start()]);
    expect(await stored()).toEqual(ONE_COPY);
    for (const server of both)
      expect(await clientsOf(server)).toEqual(['Ada Lovelace', 'Grace Hopper', 'Alan Turing']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUILT_IN_RESOURCES,
  CORE_RESOURCES,
  createDomain,
  createMemoryEventBus,
  createOutboxRelay,
  createRuntime,
  type DomainEvent,
} from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js';
import { runMigrations } from '../../src/storage/postgres/migrate.js';
import { MIGRATIONS } from '../../src/storage/postgres/migrations.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';

let db: TestDatabase;
let storage: PostgresStorage;

beforeAll(async () => {
  db = await createTestDatabase();
  storage = createPostgresStorage({ pool: db.pool });
});
afterAll(() => db?.drop());

describe('PostgreSQL migrations', () => {
  // Every step of the list, which is kept in the order the steps apply.
  const VERSIONS = MIGRATIONS.map((m) => m.version);
  const LATEST = VERSIONS.at(-1);

  it('apply every step once, even when many instances start at the same time', async () => {
    const instances = Array.from({ length: 6 }, () => createPostgresStorage({ connectionString: db.url }));
    const results = await Promise.all(instances.map((s) => s.migrate()));
    await Promise.all(instances.map((s) => s.close()));
    const appliers = results.filter((r) => r.applied.length > 0);
    expect(appliers).toHaveLength(1);
    expect(appliers[0]?.applied).toEqual(VERSIONS);
    expect(new Set(results.map((r) => r.version))).toEqual(new Set([LATEST]));
    const { rows } = await db.pool.query('SELECT version FROM switchboard_migrations ORDER BY version');
    expect(rows).toEqual(VERSIONS.map((version) => ({ version })));
  });

  it('do nothing when the schema is current', async () => {
    expect(await storage.migrate()).toEqual({ applied: [], version: LATEST });
  });

  it('create an index for every query path, and one per filtered field of every resource', async () => {
    const layouts = [...CORE_RESOURCES, ...BUILT_IN_RESOURCES].map(({ name, filters, unique }) => ({
      name,
      filters,
      unique,
    }));
    expect(await storage.resources.prepare!(layouts)).toEqual([]);
    expect(await storage.resources.prepare!(layouts)).toEqual([]); // idempotent
    const { rows } = await db.pool.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE tablename LIKE 'switchboard\\_%'",
    );
    const names = rows.map((r) => r.indexname);
    for (const expected of [
      'switchboard_res_client_email_key',
      'switchboard_res_client_city',
      'switchboard_res_order_clientid',
      'switchboard_res_order_status',
      'switchboard_res_message_chatbotid',
      'switchboard_res_message_visitorid',
      'switchboard_res_booking_service',
      'switchboard_webhook_deliveries_due_idx',
      'switchboard_webhook_attempts_failures_idx',
      'switchboard_webhook_deliveries_leased_idx',
      'switchboard_idempotency_until_idx',
      'switchboard_oauth_codes_expires_idx',
      'switchboard_oauth_grants_user_idx',
      'switchboard_oauth_grants_created_idx',
      'switchboard_console_sessions_user_idx',
      'switchboard_console_sessions_expires_idx',
    ]) {
      expect(names).toContain(expected);
    }
    // The list a nested GraphQL field makes (orders of many clients) uses its field's index.
    await db.pool.query(
      `INSERT INTO switchboard_resources (resource, id, version, created_at, updated_at, data)
       SELECT 'order', 'ord_plan_' || n, 1, now(), now(),
              jsonb_build_object('clientId', 'cli_' || (n % 500), 'status', 'pending')
       FROM generate_series(1, 20000) AS n`,
    );
    await db.pool.query('ANALYZE switchboard_resources');
    const plan = await db.pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM switchboard_resources WHERE resource = 'order'
       AND (data ->> 'clientId') = ANY($1::text[]) ORDER BY created_at, id LIMIT 1000`,
      [['cli_a', 'cli_b']],
    );
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('switchboard_res_order_clientid');
    await db.pool.query("DELETE FROM switchboard_resources WHERE id LIKE 'ord_plan_%'");
  });

  it('find a user’s grants through an index, not a scan of every grant', async () => {
    await db.pool.query(
      `INSERT INTO switchboard_oauth_grants (id, client_id, user_id, scopes, created_at, expires_at)
       SELECT 'grt_plan_' || n, 'oac_' || (n % 20), 'cli_' || (n % 2000), '{}', n, n + 1000000
       FROM generate_series(1, 20000) AS n`,
    );
    await db.pool.query('ANALYZE switchboard_oauth_grants');
    const plan = await db.pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM switchboard_oauth_grants
       WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2
       ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT 500`,
      ['cli_7', 5],
    );
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('switchboard_oauth_grants_user_idx');
    await db.pool.query("DELETE FROM switchboard_oauth_grants WHERE id LIKE 'grt_plan_%'");
  });

  it('find an endpoint’s latest failed attempts through an index, not a scan of every attempt', async () => {
    await db.pool.query(
      `INSERT INTO switchboard_webhook_attempts
         (id, delivery_id, endpoint_id, number, started_at, duration_ms, succeeded, request_headers)
       SELECT 'wha_plan_' || n, 'whd_plan_' || n, 'whe_plan_' || (n % 50), 1,
              (extract(epoch FROM now()) * 1000)::bigint - n * 1000, 10, n % 7 <> 0, '{"content-type":"application/json"}'
       FROM generate_series(1, 20000) AS n`,
    );
    await db.pool.query('ANALYZE switchboard_webhook_attempts');
    const plan = await db.pool.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM switchboard_webhook_attempts WHERE endpoint_id = $1 AND NOT succeeded
       ORDER BY started_at DESC, seq DESC LIMIT 5`,
      ['whe_plan_7'],
    );
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('switchboard_webhook_attempts_failures_idx');
    await db.pool.query("DELETE FROM switchboard_webhook_attempts WHERE id LIKE 'wha_plan_%'");
  });

  it('keep every stored time to the millisecond when timestamptz columns become epoch milliseconds', async () => {
    const old = await createTestDatabase();
    try {
      await runMigrations(
        old.pool,
        MIGRATIONS.filter((m) => m.version <= 16),
      );
      const t = '2026-03-04T05:06:07.089Z';
      const ms = Date.parse(t);
      const sql = (text: string) => old.pool.query(text, [t]);
      await sql(`INSERT INTO switchboard_api_keys (id, prefix, hash, name, scopes, created_at, revoked_at, last_used_at)
                 VALUES ('key_1', 'sbk_1', 'h1', 'Key', '{}', $1, NULL, $1::timestamptz + interval '1 ms')`);
      await sql(`INSERT INTO switchboard_oauth_clients (id, name, secret_hash, redirect_uris, scopes, grant_types,
                   created_at, previous_secret_hash, previous_secret_until)
                 VALUES ('oac_1', 'App', 'h2', '{}', '{}', '{}', $1, 'h3', $1::timestamptz + interval '2 ms')`);
      await sql(`INSERT INTO switchboard_webhook_endpoints (id, url, description, event_types, secrets, scheme,
                   enabled, disabled_reason, failing_since, created_at, updated_at, version)
                 VALUES ('whe_1', 'https://hooks.example.com', '', '{*}',
                   json_build_array(json_build_object('secret', 'whsec_new', 'createdAt', $1::text, 'expiresAt', NULL),
                     json_build_object('secret', 'whsec_old', 'createdAt', '2026-01-01T00:00:00.000Z',
                       'expiresAt', '2026-03-05T00:00:00.001Z')),
                   'switchboard', true, NULL, $1::timestamptz, $1::timestamptz, $1::timestamptz, 1)`);
      await sql(`INSERT INTO switchboard_webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status,
                   attempts, next_attempt_at, leased_by, lease_until, created_at, updated_at)
                 VALUES ('whd_1', 'whe_1', 'evt_1', 'order.created', '{}', 'pending', 1, $1, 'w', $1, $1, $1)`);
      await sql(`INSERT INTO switchboard_webhook_attempts (id, delivery_id, endpoint_id, number, started_at,
                   duration_ms, succeeded) VALUES ('wha_1', 'whd_1', 'whe_1', 1, $1, 5, false)`);

      expect((await runMigrations(old.pool)).applied).toEqual(
        MIGRATIONS.map((m) => m.version).filter((v) => v >= 17),
      );
      const migrated = createPostgresStorage({ pool: old.pool });
      expect(await migrated.apiKeys.get('key_1')).toMatchObject({
        createdAt: ms,
        revokedAt: null,
        lastUsedAt: ms + 1,
      });
      expect(await migrated.oauth.clients.get('oac_1')).toMatchObject({
        createdAt: ms,
        previousSecret: { hash: 'h3', until: ms + 2 },
      });
      expect(await migrated.webhooks.endpoints.get('whe_1')).toMatchObject({
        secrets: [
          { secret: 'whsec_new', createdAt: ms, expiresAt: null },
          {
            secret: 'whsec_old',
            createdAt: Date.UTC(2026, 0, 1),
            expiresAt: Date.UTC(2026, 2, 5, 0, 0, 0, 1),
          },
        ],
        failingSince: ms,
        createdAt: ms,
        updatedAt: ms,
      });
      expect(await migrated.webhooks.deliveries.get('whd_1')).toMatchObject({
        nextAttemptAt: ms,
        leaseUntil: ms,
        createdAt: ms,
        updatedAt: ms,
      });
      expect(await migrated.webhooks.attempts.listByDelivery('whd_1')).toMatchObject([{ startedAt: ms }]);
    } finally {
      await old.drop();
    }
  });
});

describe('PostgreSQL storage', () => {
  it('prepares a hot statement once per connection, or never with preparedStatements false', async () => {
    const preparedOn = async (options: { preparedStatements?: boolean }): Promise<string[]> => {
      // One connection, so the view below sees the statements of the connection that ran the reads.
      const one = createPostgresStorage({ connectionString: db.url, maxConnections: 1, ...options });
      try {
        expect(await one.resources.get('client', 'cli_none')).toBeNull();
        expect(await one.resources.get('client', 'cli_none_either')).toBeNull();
        const { rows } = await one.pool.query<{ statement: string }>(
          'SELECT statement FROM pg_prepared_statements',
        );
        return rows.map((r) => r.statement);
      } finally {
        await one.close();
      }
    };
    const byId = /FROM switchboard_resources WHERE resource = \$1 AND id = \$2/;
    expect((await preparedOn({})).filter((s) => byId.test(s))).toHaveLength(1);
    expect(await preparedOn({ preparedStatements: false })).toEqual([]);
  });

  it('plans the background queues’ statements generically and leaves requests to PostgreSQL', async () => {
    const made = createPostgresStorage({ connectionString: db.url });
    try {
      const mode = async (s: { pool: PostgresStorage['pool'] }) =>
        (await s.pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]!.plan_cache_mode;
      expect(await mode(made)).toBe('auto');
      expect(await mode(made.background as PostgresStorage)).toBe('force_generic_plan');
    } finally {
      await made.close();
    }
  });

  it('prepares the lists a caller repeats, up to 200 texts, then sends the others as text', async () => {
    const one = createPostgresStorage({ connectionString: db.url, maxConnections: 1 });
    try {
      const list = (field: string) =>
        one.resources.list('client', {
          where: { [field]: 'x' },
          sort: { field: 'createdAt', descending: false },
          range: { offset: 0, limit: 20 },
        });
      // Each field its own text; the first is asked for twice and prepared once.
      for (let i = 0; i < 210; i++) expect((await list(`field${i}`)).items).toEqual([]);
      expect((await list('field0')).total).toBe(0);
      const { rows } = await one.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE '%count(*) OVER ()%'",
      );
      expect(rows[0]!.n).toBe(200);
    } finally {
      await one.close();
    }
  });

  it('reports a duplicate e-mail exactly as the memory adapter does', async () => {
    const input = { name: 'Ada', email: 'ada.twice@example.com' };
    const failures = await Promise.all(
      [createMemoryStorage(), storage].map(async (s) => {
        const domain = createDomain(createRuntime({ storage: s }));
        await domain.clients.create(input);
        return domain.clients.create(input).catch((error: unknown) => error);
      }),
    );
    expect(failures[1]).toMatchObject({ code: 'conflict', status: 409 });
    expect(JSON.stringify(failures[1])).toBe(JSON.stringify(failures[0]));
  });

  it('keeps a change and its event together: a failed write leaves neither', async () => {
    const domain = createDomain(createRuntime({ storage }));
    const taken = await domain.clients.create({ name: 'Grace', email: 'grace.once@example.com' });
    const other = await domain.clients.create({ name: 'Alan', email: 'alan.once@example.com' });
    await expect(domain.clients.update(other.id, { email: taken.email })).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(await storage.resources.get('client', other.id)).toEqual(other);
    const events = await storage.outbox.claim({ now: Date.now(), limit: 100, leaseMs: 1 });
    expect(events.filter((e) => e.type === 'client.updated')).toEqual([]);
    await storage.outbox.markRelayed(events.map((e) => e.id));
  });

  it('answers unavailable, not a crash, when the database cannot be reached', async () => {
    const down = createPostgresStorage({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    await expect(down.ping()).rejects.toMatchObject({ code: 'unavailable', status: 503 });
    await expect(down.transaction(async () => 1)).rejects.toMatchObject({ code: 'unavailable' });
    await down.close();
  });

  it('closes the pool it made, and leaves a pool it was given open', async () => {
    const own = createPostgresStorage({ connectionString: db.url });
    await own.ping();
    await own.close();
    await expect(own.ping()).rejects.toThrow();
    const borrowed = createPostgresStorage({ pool: db.pool });
    await borrowed.close();
    await expect(borrowed.ping()).resolves.toBeUndefined();
  });

  it('keeps connections of its own for background work, on the same data, and closes them too', async () => {
    const own = createPostgresStorage({ connectionString: db.url, backgroundConnections: 2 });
    const background = own.background as PostgresStorage | undefined;
    expect(background?.pool).toBeDefined();
    expect(background?.pool).not.toBe(own.pool);
    await own.outbox.append({
      id: 'evt_background',
      type: 'client.created',
      occurredAt: '2026-01-01T00:00:00.000Z',
      data: {},
    });
    const claimed = await background!.outbox.claim({ now: Date.now(), limit: 100, leaseMs: 1_000 });
    expect(claimed.map((e) => e.id)).toContain('evt_background');
    await background!.outbox.markRelayed(['evt_background']);
    await own.close();
    await expect(background!.ping()).rejects.toThrow();
    // A host's own pool: no second pool unless it passes one; 0 shares the main pool.
    expect(createPostgresStorage({ pool: db.pool }).background).toBeUndefined();
    expect(
      createPostgresStorage({ connectionString: db.url, backgroundConnections: 0 }).background,
    ).toBeUndefined();
  });

  it('sweeps expired idempotency keys, OAuth records, console sessions, old finished deliveries and full rate-limit buckets', async () => {
    const now = Date.UTC(2030, 0, 1);
    await storage.idempotency.claim('sweep:done', { now, lockMs: 1000 });
    await storage.idempotency.complete('sweep:done', 'x', now + 10);
    await storage.idempotency.complete('sweep:kept', 'y', now + 60_000);
    await storage.oauth.accessTokens.insert({
      tokenHash: 'a'.repeat(64),
      grantId: 'grt_sweep',
      clientId: 'oac_sweep',
      userId: null,
      scopes: [],
      createdAt: now - 100,
      expiresAt: now,
    });
    // A bucket full again by then (its row can go) and one still draining.
    await storage.rateLimits.take('sweep:full', { limit: 1000, windowMs: 1000 }, 1, now);
    await storage.rateLimits.take('sweep:draining', { limit: 1, windowMs: 60_000 }, 1, now);
    await storage.consoleSessions.insert({
      idHash: 'c'.repeat(64),
      userId: null,
      createdAt: now - 100,
      expiresAt: now,
    });
    const swept = await storage.sweep({ now: now + 10 });
    expect(swept.consoleSessions).toBe(1);
    expect(swept.rateLimits).toBeGreaterThanOrEqual(1);
    expect(
      (await storage.rateLimits.take('sweep:draining', { limit: 1, windowMs: 60_000 }, 1, now + 10)).allowed,
    ).toBe(false);
    expect(swept.idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect(swept.oauthRecords).toBe(1);
    expect(swept.webhookDeliveries).toBe(0);
    expect(await storage.oauth.accessTokens.get('a'.repeat(64))).toBeNull();
    expect(await storage.idempotency.claim('sweep:kept', { now: now + 20, lockMs: 1 })).toEqual({
      state: 'completed',
      result: 'y',
    });
  });
});

describe('many instances on one database', () => {
  it('relays every event exactly once across three relays and hands each to one durable handler', async () => {
    const instances = Array.from({ length: 3 }, () => createPostgresStorage({ connectionString: db.url }));
    const handled = new Map<string, number>();
    const relays = instances.map((s) => {
      const relay = createOutboxRelay(createRuntime({ storage: s }), {
        bus: createMemoryEventBus(),
        batchSize: 7,
      });
      relay.use(async (events: readonly DomainEvent[]) => {
        for (const event of events) handled.set(event.id, (handled.get(event.id) ?? 0) + 1);
      });
      return relay;
    });
    const created: string[] = [];
    await Promise.all(
      instances.map(async (s, i) => {
        const domain = createDomain(createRuntime({ storage: s }));
        for (let k = 0; k < 40; k++) {
          const message = await domain.messages.create({
            chatbotId: 'bot-multi',
            visitorId: `v${i}`,
            content: `m${k}`,
          });
          created.push(message.id);
        }
      }),
    );
    const counts = await Promise.all(relays.map((r) => r.flush()));
    await Promise.all(relays.map((r) => r.flush()));
    await Promise.all(instances.map((s) => s.close()));

    // 120 messages, and the conversation each visitor's first message started.
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(123);
    expect(handled.size).toBe(123);
    expect([...handled.values()].every((times) => times === 1)).toBe(true);
    const page = await createDomain(createRuntime({ storage })).messages.list({
      where: { chatbotId: 'bot-multi' },
      range: { offset: 0, limit: 500 },
    });
    expect(page.total).toBe(120);
    expect(new Set(page.items.map((m) => m.id))).toEqual(new Set(created));
  });
});

describe('PostgreSQL transactions that deadlock', () => {
  it('answer the one PostgreSQL aborts with a retryable unavailable error, and write nothing of it', async () => {
    const record = (id: string) => ({
      id,
      name: id,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      version: 1,
    });
    const [a, b] = [record('ddl_a'), record('ddl_b')];
    await storage.migrate();
    await storage.resources.insert('deadlock-test', a);
    await storage.resources.insert('deadlock-test', b);
    // Each locks one row, waits until both hold theirs, then asks for the other's: a deadlock.
    let held = 0;
    const bothHold = async () => {
      held++;
      while (held < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const crossing = (first: typeof a, second: typeof a) =>
      storage.transaction(async (tx) => {
        await tx.resources.update('deadlock-test', { ...first, version: 2 }, 1);
        await bothHold();
        await tx.resources.update('deadlock-test', { ...second, version: 2 }, 1);
      });
    const outcomes = await Promise.allSettled([crossing(a, b), crossing(b, a)]);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({
      code: 'unavailable',
      retryAfter: 1,
    });
    // The other committed both rows; the aborted one left no trace.
    expect((await storage.resources.get('deadlock-test', 'ddl_a'))?.version).toBe(2);
    expect((await storage.resources.get('deadlock-test', 'ddl_b'))?.version).toBe(2);
  });
});

/**
 * Declared resources in PostgreSQL: a table per resource, or one generic JSONB table? The same data and
 * the same queries on three layouts, measured in one run:
 *
 *   A  a table per resource, e.g. bench_bookings (id, version, created_at, updated_at, client_id, service,
 *      status, starts_at, duration_minutes, notes), btree indexes (created_at, id) (the unfiltered list's,
 *      as B and C have it) and (client_id | status | service, created_at, id)
 *   B  one generic table bench_resources (resource, id, version, created_at, updated_at, data jsonb),
 *      index (resource, created_at, id) and a partial expression index per declared filter, e.g.
 *      ((data->>'clientId'), created_at, id) WHERE resource = 'bookings'; queries compare data->>'field'.
 *      Plus CREATE STATISTICS on the filter expressions (PostgreSQL 14+), without which the planner has
 *      no statistics for them and misplans the ANY batch; --no-expression-stats leaves them out
 *   C  the same generic table with only a GIN index on data (jsonb_path_ops), queried by containment,
 *      data @> '{"clientId": …}': what src/storage/postgres/resources.ts does today (its `= ANY` filter
 *      is data->>'field' = ANY(…), which no index serves, and so is workload 5 here)
 *
 * Data: 5 resource kinds of 50,000 records each; bookings over 2,000 clients, 8 services and 4 statuses,
 * the 4 other kinds of the same shape. A keeps each kind in a table of its own; B and C hold all 250,000
 * rows in one table, loaded in creation order so the kinds interleave on disk as they would in production.
 *
 * Workloads, all on bookings, each a fixed number of operations per round run one after another over one
 * connection (and some also spread over 8 connections): insert one record; get by id; list by clientId
 * (ORDER BY created_at, id LIMIT 20 with count(*) OVER ()); list by service and status (same shape); a
 * nested batch (clientId = ANY of 20 ids, LIMIT 1000); update by id with a version compare-and-set.
 * After an untimed warm-up the rounds interleave the variants (A B C, A B C, …). Each line shows the
 * median ops/s over the rounds, the min–max, and the ratio of the median to A's. Also printed: table and
 * index sizes after loading, EXPLAIN (ANALYZE, BUFFERS) of the list and batch queries (top node, scan
 * nodes, execution time) to see which index serves each, and their execution times again after the
 * rounds, with the size of C's GIN pending list (through pgstattuple, when the server has it).
 *
 *   npm run bench:resource-tables                  # 5 rounds, about 2–3 minutes on 2 cores
 *   npm run bench:resource-tables -- --rounds 9
 *   npm run bench:resource-tables -- --no-expression-stats   # B as it plans without CREATE STATISTICS
 *   DATABASE_URL=postgres://… npm run bench:resource-tables   # a throwaway database on that server
 *
 * Without DATABASE_URL (or SWITCHBOARD_TEST_DATABASE_URL) it starts a throwaway cluster with the test
 * machinery (test/setup/cluster.ts, on Debian's postgresql as .ci/run installs it), with PostgreSQL's
 * durable defaults (fsync and synchronous commit on), and removes it at the end.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openBenchDatabase } from './http/postgres.js';

const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    'no-expression-stats': { type: 'boolean', default: false },
  },
});
const ROUNDS = Math.max(1, Number(options.rounds) || 5);
const EXPRESSION_STATS = !options['no-expression-stats'];

const KINDS = ['bookings', 'invoices', 'tickets', 'reviews', 'subscriptions'] as const;
const PER_KIND = 50_000;
const CLIENTS = 2_000;
const SERVICES = ['haircut', 'colour', 'massage', 'facial', 'manicure', 'pedicure', 'waxing', 'styling'];
const STATUSES = ['pending', 'confirmed', 'completed', 'cancelled'];
/** The declared filters: field in `data` → column in A's tables. */
const FILTERS = { clientId: 'client_id', status: 'status', service: 'service' } as const;

interface Booking {
  readonly id: string;
  readonly clientId: string;
  readonly service: string;
  readonly status: string;
  readonly startsAt: string;
  readonly durationMinutes: number;
  readonly notes: string;
}

interface Query {
  readonly text: string;
  readonly values: unknown[];
}

/** The statements of one layout, on bookings. */
interface Queries {
  insert(booking: Booking, at: string): Query;
  get(id: string): Query;
  byClient(clientId: string): Query;
  byServiceStatus(service: string, status: string): Query;
  batch(clientIds: string[]): Query;
  /** Writes every writable field, as a store's replace does, if the version is still `expected`. */
  update(booking: Booking, expected: number, at: string): Query;
}

interface Variant {
  readonly key: 'A' | 'B' | 'C';
  readonly label: string;
  readonly tables: readonly string[];
  /** Creates the tables from `bench_seed`, then the indexes. */
  readonly load: string;
  readonly queries: Queries;
  /** Each updated booking's current version (absent: 1). */
  readonly versions: Map<string, number>;
}

// ---------------------------------------------------------------------------------------------------
// The three layouts

const COLUMNS = `id text PRIMARY KEY, version integer NOT NULL, created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL, client_id text NOT NULL, service text NOT NULL, status text NOT NULL,
  starts_at timestamptz NOT NULL, duration_minutes integer NOT NULL, notes text NOT NULL`;

const tablePerResource: Variant = {
  key: 'A',
  label: 'table per resource',
  tables: KINDS.map((kind) => `bench_${kind}`),
  load: KINDS.map(
    (kind) => `CREATE TABLE bench_${kind} (${COLUMNS});
      INSERT INTO bench_${kind}
        SELECT id, 1, created_at, created_at, client_id, service, status, starts_at, duration_minutes, notes
        FROM bench_seed WHERE kind = '${kind}' ORDER BY created_at;
      CREATE INDEX bench_${kind}_created_idx ON bench_${kind} (created_at, id);
      ${Object.values(FILTERS)
        .map(
          (column) =>
            `CREATE INDEX bench_${kind}_${column}_idx ON bench_${kind} (${column}, created_at, id);`,
        )
        .join('\n')}`,
  ).join('\n'),
  queries: {
    insert: (b, at) => ({
      text: `INSERT INTO bench_bookings (id, version, created_at, updated_at, client_id, service, status,
               starts_at, duration_minutes, notes) VALUES ($1, 1, $2, $2, $3, $4, $5, $6, $7, $8)`,
      values: [b.id, at, b.clientId, b.service, b.status, b.startsAt, b.durationMinutes, b.notes],
    }),
    get: (id) => ({ text: 'SELECT * FROM bench_bookings WHERE id = $1', values: [id] }),
    byClient: (clientId) => ({
      text: `SELECT *, count(*) OVER () AS total FROM bench_bookings WHERE client_id = $1
             ORDER BY created_at, id LIMIT 20`,
      values: [clientId],
    }),
    byServiceStatus: (service, status) => ({
      text: `SELECT *, count(*) OVER () AS total FROM bench_bookings WHERE service = $1 AND status = $2
             ORDER BY created_at, id LIMIT 20`,
      values: [service, status],
    }),
    batch: (clientIds) => ({
      text: `SELECT * FROM bench_bookings WHERE client_id = ANY($1::text[]) ORDER BY created_at, id LIMIT 1000`,
      values: [clientIds],
    }),
    update: (b, expected, at) => ({
      text: `UPDATE bench_bookings SET version = $3, updated_at = $4, client_id = $5, service = $6, status = $7,
               starts_at = $8, duration_minutes = $9, notes = $10
             WHERE id = $1 AND version = $2`,
      values: [
        b.id,
        expected,
        expected + 1,
        at,
        b.clientId,
        b.service,
        b.status,
        b.startsAt,
        b.durationMinutes,
        b.notes,
      ],
    }),
  },
  versions: new Map(),
};

const GENERIC = `resource text NOT NULL, id text NOT NULL, version integer NOT NULL,
  created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, data jsonb NOT NULL,
  PRIMARY KEY (resource, id)`;

/** The generic table loaded from the seed in creation order, with its (resource, created_at, id) index. */
const genericLoad = (table: string): string => `CREATE TABLE ${table} (${GENERIC});
  INSERT INTO ${table}
    SELECT kind, id, 1, created_at, created_at, jsonb_build_object('clientId', client_id, 'service', service,
      'status', status, 'startsAt', starts_at, 'durationMinutes', duration_minutes, 'notes', notes)
    FROM bench_seed ORDER BY created_at, kind;
  CREATE INDEX ${table}_created_idx ON ${table} (resource, created_at, id);`;

const dataOf = (b: Booking): string => {
  const { id: _id, ...data } = b;
  return JSON.stringify(data);
};

/**
 * The statements B and C share. The resource name is a literal, not a parameter: a partial index's
 * predicate (resource = 'bookings') can only be proved against a literal, and a store knows its
 * declared resources' names when it builds its SQL.
 */
const genericQueries = (table: string, where: Pick<Queries, 'byClient' | 'byServiceStatus'>): Queries => ({
  insert: (b, at) => ({
    text: `INSERT INTO ${table} (resource, id, version, created_at, updated_at, data)
           VALUES ('bookings', $1, 1, $2, $2, $3)`,
    values: [b.id, at, dataOf(b)],
  }),
  get: (id) => ({
    text: `SELECT id, version, created_at, updated_at, data FROM ${table} WHERE resource = 'bookings' AND id = $1`,
    values: [id],
  }),
  ...where,
  batch: (clientIds) => ({
    text: `SELECT id, version, created_at, updated_at, data FROM ${table}
           WHERE resource = 'bookings' AND data->>'clientId' = ANY($1::text[])
           ORDER BY created_at, id LIMIT 1000`,
    values: [clientIds],
  }),
  update: (b, expected, at) => ({
    text: `UPDATE ${table} SET version = $3, updated_at = $4, data = $5
           WHERE resource = 'bookings' AND id = $1 AND version = $2`,
    values: [b.id, expected, expected + 1, at, dataOf(b)],
  }),
});

const listOf = (table: string, condition: string): string =>
  `SELECT id, version, created_at, updated_at, data, count(*) OVER () AS total FROM ${table}
   WHERE resource = 'bookings' AND ${condition} ORDER BY created_at, id LIMIT 20`;

const expressionIndexes: Variant = {
  key: 'B',
  label: 'generic + expression indexes',
  tables: ['bench_resources'],
  load: `${genericLoad('bench_resources')}
    ${KINDS.flatMap((kind) =>
      Object.keys(FILTERS).map(
        (field) => `CREATE INDEX bench_resources_${kind}_${field}_idx ON bench_resources
          ((data->>'${field}'), created_at, id) WHERE resource = '${kind}';`,
      ),
    ).join('\n')}
    ${
      // The planner takes no statistics from a partial index's expressions, so without these it
      // guesses 0.5% of the rows per value and, for `= ANY(20 ids) … LIMIT 1000`, walks the
      // (resource, created_at, id) index instead of the clientId one (--no-expression-stats shows it).
      EXPRESSION_STATS
        ? `CREATE STATISTICS bench_resources_fields ON
             ${Object.keys(FILTERS)
               .map((field) => `(data->>'${field}')`)
               .join(', ')} FROM bench_resources;`
        : ''
    }`,
  queries: genericQueries('bench_resources', {
    // The field name is in the SQL text: an expression index matches only the same expression.
    byClient: (clientId) => ({
      text: listOf('bench_resources', `data->>'clientId' = $1`),
      values: [clientId],
    }),
    byServiceStatus: (service, status) => ({
      text: listOf('bench_resources', `data->>'service' = $1 AND data->>'status' = $2`),
      values: [service, status],
    }),
  }),
  versions: new Map(),
};

const ginIndex: Variant = {
  key: 'C',
  label: 'generic + GIN (today)',
  tables: ['bench_resources_gin'],
  load: `${genericLoad('bench_resources_gin')}
    CREATE INDEX bench_resources_gin_data_idx ON bench_resources_gin USING gin (data jsonb_path_ops);`,
  queries: genericQueries('bench_resources_gin', {
    byClient: (clientId) => ({
      text: listOf('bench_resources_gin', 'data @> $1::jsonb'),
      values: [JSON.stringify({ clientId })],
    }),
    byServiceStatus: (service, status) => ({
      text: listOf('bench_resources_gin', 'data @> $1::jsonb'),
      values: [JSON.stringify({ service, status })],
    }),
  }),
  versions: new Map(),
};

const VARIANTS = [tablePerResource, expressionIndexes, ginIndex] as const;

// ---------------------------------------------------------------------------------------------------
// Workloads

/** One operation; the same closures run on every variant, so each sees the same arguments. */
type Operation = (client: pg.Client, variant: Variant) => Promise<void>;

interface Workload {
  readonly name: string;
  /** Operations per round. */
  readonly ops: number;
  readonly connections: number;
  /** The operations of one round (round -1 is the warm-up). */
  operations(random: () => number, round: number, count: number): Operation[];
}

let bookings: Booking[] = [];

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const clientId = (random: () => number): string =>
  `cli_${String(Math.floor(random() * CLIENTS)).padStart(4, '0')}`;

async function expectRows(client: pg.Client, query: Query, least: number): Promise<void> {
  const result = await client.query(query);
  if ((result.rowCount ?? 0) < least) throw new Error(`expected a row from: ${query.text}`);
}

function insert(connections: number, ops: number): Workload {
  return {
    name: '1. insert one record',
    ops,
    connections,
    operations: (random, round, count) =>
      Array.from({ length: count }, (_, i) => {
        const booking: Booking = {
          id: `boo_new_${connections}_${round}_${i}`,
          clientId: clientId(random),
          service: pick(random, SERVICES),
          status: 'pending',
          startsAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 90) * 86_400_000).toISOString(),
          durationMinutes: 60,
          notes: `Booked online, round ${round}, #${i}`,
        };
        return async (client, variant) => {
          await client.query(variant.queries.insert(booking, new Date().toISOString()));
        };
      }),
  };
}

function get(connections: number, ops: number): Workload {
  return {
    name: '2. get by id',
    ops,
    connections,
    operations: (random, _round, count) =>
      Array.from({ length: count }, () => {
        const { id } = pick(random, bookings);
        return (client, variant) => expectRows(client, variant.queries.get(id), 1);
      }),
  };
}

function byClient(connections: number, ops: number): Workload {
  return {
    name: '3. list clientId = x, LIMIT 20 + count',
    ops,
    connections,
    operations: (random, _round, count) =>
      Array.from({ length: count }, () => {
        const id = clientId(random);
        return (client, variant) => expectRows(client, variant.queries.byClient(id), 0);
      }),
  };
}

function byServiceStatus(connections: number, ops: number): Workload {
  return {
    name: '4. list service = x AND status, LIMIT 20 + count',
    ops,
    connections,
    operations: (random, _round, count) =>
      Array.from({ length: count }, () => {
        const service = pick(random, SERVICES);
        return (client, variant) =>
          expectRows(client, variant.queries.byServiceStatus(service, 'confirmed'), 20);
      }),
  };
}

function batch(connections: number, ops: number): Workload {
  return {
    name: '5. batch clientId = ANY(20 ids), LIMIT 1000',
    ops,
    connections,
    operations: (random, _round, count) =>
      Array.from({ length: count }, () => {
        const ids = Array.from({ length: 20 }, () => clientId(random));
        return (client, variant) => expectRows(client, variant.queries.batch(ids), 100);
      }),
  };
}

function update(connections: number, ops: number): Workload {
  return {
    name: '6. update by id, version compare-and-set',
    ops,
    connections,
    operations: (random, _round, count) => {
      // Distinct records within a round, so concurrent connections never race for one.
      const chosen = new Set<Booking>();
      while (chosen.size < count) chosen.add(pick(random, bookings));
      return [...chosen].map((booking) => {
        const changed = { ...booking, status: pick(random, STATUSES), notes: `${booking.notes} (edited)` };
        return async (client, variant) => {
          const expected = variant.versions.get(booking.id) ?? 1;
          const result = await client.query(
            variant.queries.update(changed, expected, new Date().toISOString()),
          );
          if (result.rowCount !== 1)
            throw new Error(`${variant.key}: compare-and-set of ${booking.id} failed`);
          variant.versions.set(booking.id, expected + 1);
        };
      });
    },
  };
}

/** Operation counts sized so a round of one variant takes well under a second on a small machine. */
const WORKLOADS: Workload[] = [
  insert(1, 1_500),
  get(1, 3_000),
  byClient(1, 800),
  byServiceStatus(1, 100),
  batch(1, 40),
  update(1, 1_500),
  insert(8, 3_000),
  get(8, 6_000),
  byClient(8, 1_200),
  update(8, 3_000),
];

/** A small deterministic generator (mulberry32), so every variant gets the same arguments. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Runs the operations over the given connections (each takes the next one when free); ops/s. */
async function timed(operations: Operation[], variant: Variant, clients: pg.Client[]): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (next < operations.length) await operations[next++]!(client, variant);
    }),
  );
  return operations.length / ((performance.now() - started) / 1000);
}

// ---------------------------------------------------------------------------------------------------
// Setup, sizes, plans, report

async function seed(client: pg.Client): Promise<void> {
  const text = (values: readonly string[]) => `ARRAY[${values.map((v) => `'${v}'`).join(', ')}]`;
  const version = await client.query<{ server_version_num: string }>('SHOW server_version_num');
  if (EXPRESSION_STATS && Number(version.rows[0]!.server_version_num) < 140000)
    throw new Error('Statistics on expressions need PostgreSQL 14 or later: run with --no-expression-stats.');
  await client.query(`SELECT setseed(0.42)`);
  await client.query(`CREATE TABLE bench_seed AS
    SELECT kind, left(kind, 3) || '_' || lpad(g::text, 6, '0') AS id,
      timestamptz '2025-01-01 00:00Z' + (g - 1) * interval '10 minutes' + random() * interval '10 minutes'
        AS created_at,
      'cli_' || lpad(floor(random() * ${CLIENTS})::int::text, 4, '0') AS client_id,
      (${text(SERVICES)})[1 + floor(random() * ${SERVICES.length})::int] AS service,
      (${text(STATUSES)})[1 + floor(random() * ${STATUSES.length})::int] AS status,
      timestamptz '2025-01-03 09:00Z' + (g - 1) * interval '10 minutes' AS starts_at,
      (ARRAY[30, 45, 60, 90])[1 + floor(random() * 4)::int] AS duration_minutes,
      'Asked for ' || md5(kind || g) || ', ' || left(md5(g || kind), 20) AS notes
    FROM unnest(${text(KINDS)}) kind, generate_series(1, ${PER_KIND}) g`);
  const { rows } = await client.query<{
    id: string;
    client_id: string;
    service: string;
    status: string;
    starts_at: Date;
    duration_minutes: number;
    notes: string;
  }>(`SELECT * FROM bench_seed WHERE kind = 'bookings'`);
  bookings = rows.map((r) => ({
    id: r.id,
    clientId: r.client_id,
    service: r.service,
    status: r.status,
    startsAt: r.starts_at.toISOString(),
    durationMinutes: r.duration_minutes,
    notes: r.notes,
  }));
  for (const variant of VARIANTS) {
    await client.query(variant.load);
    for (const table of variant.tables) await client.query(`VACUUM ANALYZE ${table}`);
  }
  await client.query('DROP TABLE bench_seed');
}

const mb = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MB`;

async function sizes(client: pg.Client): Promise<string[]> {
  const lines = ['Sizes after loading (heap incl. TOAST / indexes / total):'];
  for (const variant of VARIANTS) {
    const { rows } = await client.query<{ heap: string; indexes: string; total: string }>(
      `SELECT sum(pg_table_size(t)) AS heap, sum(pg_indexes_size(t)) AS indexes,
         sum(pg_total_relation_size(t)) AS total FROM unnest($1::regclass[]) t`,
      [variant.tables],
    );
    const { heap, indexes, total } = rows[0]!;
    const scope = variant.key === 'A' ? 'all 5 tables' : '1 table, 5 kinds';
    lines.push(
      `  ${variant.key} ${variant.label.padEnd(30)} ${scope.padEnd(17)} ${mb(Number(heap)).padStart(9)} / ` +
        `${mb(Number(indexes)).padStart(9)} / ${mb(Number(total)).padStart(9)}`,
    );
    const index = await client.query<{ name: string; size: string }>(
      `SELECT indexrelid::regclass::text AS name, pg_relation_size(indexrelid) AS size FROM pg_index
       WHERE indrelid = ANY($1::regclass[]) ORDER BY 1`,
      [variant.tables],
    );
    // The bookings' own indexes one by one; the other kinds' summed.
    const own = index.rows.filter((r) => variant.key !== 'A' || r.name.startsWith('bench_bookings'));
    const bookingsOnly = own.filter((r) => !KINDS.some((k) => k !== 'bookings' && r.name.includes(`_${k}_`)));
    const others = own.filter((r) => !bookingsOnly.includes(r));
    const parts = bookingsOnly.map((r) => `${r.name} ${mb(Number(r.size))}`);
    if (others.length)
      parts.push(
        `${others.length} partial indexes of the other kinds ${mb(others.reduce((s, r) => s + Number(r.size), 0))}`,
      );
    if (variant.key === 'A') {
      const bookingsTable = await client.query<{ total: string }>(
        `SELECT pg_total_relation_size('bench_bookings') AS total`,
      );
      parts.unshift(`bench_bookings total ${mb(Number(bookingsTable.rows[0]!.total))}`);
    }
    for (const part of parts) lines.push(`      ${part}`);
  }
  return lines;
}

const PLAN_CASES: [string, (q: Queries) => Query][] = [
  ['2. get by id', (q) => q.get(bookings[1]!.id)],
  ['3. clientId = x', (q) => q.byClient(bookings[0]!.clientId)],
  [`4. service = 'massage' AND status = 'confirmed'`, (q) => q.byServiceStatus('massage', 'confirmed')],
  ['5. clientId = ANY(20 ids)', (q) => q.batch(bookings.slice(0, 20).map((b) => b.clientId))],
];

async function explain(client: pg.Client, query: Query): Promise<string[]> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${query.text}`,
    query.values,
  );
  return rows.map((r) => r['QUERY PLAN'].trim());
}

const clip = (line: string): string => (line.length > 150 ? `${line.slice(0, 147)}...` : line);

/** Of each plan: the top node, its buffers, the scan nodes, the planning and execution times. */
async function plans(client: pg.Client): Promise<string[]> {
  const lines = [
    'Plans after the warm-up (EXPLAIN ANALYZE, BUFFERS: top node, its buffers, scan nodes, planning and',
    'execution time):',
  ];
  for (const [name, build] of PLAN_CASES) {
    lines.push(`  ${name}`);
    for (const variant of VARIANTS) {
      const [top, ...rest] = await explain(client, build(variant.queries));
      const buffers = rest.find((l) => l.startsWith('Buffers:'));
      lines.push(`    ${variant.key}: ${top}`);
      for (const line of [
        ...(buffers ? [buffers] : []),
        ...rest.filter((l) => /Scan |Planning Time|Execution Time/.test(l)),
      ])
        lines.push(`         ${clip(line)}`);
    }
  }
  return lines;
}

/** The same plans' planning and execution times after the rounds (the tables have grown; C's GIN has a pending list). */
async function planTimes(client: pg.Client): Promise<string[]> {
  const lines = ['The same plans after the rounds, planning + execution time:'];
  for (const [name, build] of PLAN_CASES) {
    const times: string[] = [];
    for (const variant of VARIANTS) {
      const plan = await explain(client, build(variant.queries));
      const ms = (label: string) =>
        plan.find((l) => l.startsWith(label))?.replace(/^.*: ([\d.]+) ms$/, '$1') ?? '?';
      times.push(`${variant.key} ${ms('Planning Time')} + ${ms('Execution Time')} ms`.padEnd(24));
    }
    lines.push(`  ${name.padEnd(48)} ${times.join('').trimEnd()}`);
  }
  // The GIN's pending list (fastupdate): every containment search scans it until VACUUM merges it.
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
    const { rows } = await client.query<{ pending_pages: number; pending_tuples: string }>(
      `SELECT pending_pages, pending_tuples FROM pgstatginindex('bench_resources_gin_data_idx')`,
    );
    lines.push(
      `  C's GIN pending list: ${rows[0]!.pending_tuples} tuples in ${rows[0]!.pending_pages} pages ` +
        '(scanned by every containment search until VACUUM merges it)',
    );
  } catch {
    lines.push("  (C's GIN pending list unknown: no pgstattuple extension)");
  }
  return lines;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const rate = (n: number): string =>
  n >= 100 ? Math.round(n).toLocaleString('en') : n.toLocaleString('en', { maximumFractionDigits: 1 });

function report(results: number[][][]): string[] {
  const cell = (values: number[], base: number) => {
    const m = median(values);
    const spread = `${rate(Math.min(...values))}–${rate(Math.max(...values))}`;
    return `${rate(m).padStart(7)} (${spread})`.padEnd(24) + `${(m / base).toFixed(2)}×`.padStart(6);
  };
  const lines = [
    `ops/s: median (min–max over ${ROUNDS} rounds), ratio of medians to A`,
    `${'workload'.padEnd(52)}${VARIANTS.map((v) => `${v.key} ${v.label}`.padEnd(33)).join('')}`,
  ];
  WORKLOADS.forEach((workload, w) => {
    const base = median(results[w]![0]!);
    const name = `${workload.name}${workload.connections > 1 ? ` ×${workload.connections} conn` : ''}`;
    lines.push(
      `${name.padEnd(52)}${VARIANTS.map((_, v) => `${cell(results[w]![v]!, base)}   `).join('')}`.trimEnd(),
    );
  });
  return lines;
}

// ---------------------------------------------------------------------------------------------------

const say = (lines: string[]): void => void process.stdout.write(`${lines.join('\n')}\n\n`);

const database = await openBenchDatabase(
  process.env.DATABASE_URL ?? process.env.SWITCHBOARD_TEST_DATABASE_URL,
);
const clients: pg.Client[] = [];
try {
  for (let i = 0; i < 8; i++) {
    const client = new pg.Client({
      connectionString: database.url,
      application_name: 'bench-resource-tables',
    });
    await client.connect();
    clients.push(client);
  }
  const one = clients.slice(0, 1);
  const started = performance.now();
  await seed(one[0]!);
  const { rows } = await one[0]!.query<{ server_version: string }>('SHOW server_version');
  say([
    `PostgreSQL ${rows[0]!.server_version}; ${KINDS.length} kinds × ${PER_KIND.toLocaleString('en')} records ` +
      `loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  ]);
  say(await sizes(one[0]!));

  // Warm-up: every workload once on every variant, a quarter of the operations, untimed.
  for (const [w, workload] of WORKLOADS.entries()) {
    const operations = workload.operations(generator(w + 1), -1, Math.ceil(workload.ops / 4));
    for (const variant of VARIANTS) await timed(operations, variant, clients.slice(0, workload.connections));
  }
  say(await plans(one[0]!));

  const results = WORKLOADS.map(() => VARIANTS.map((): number[] => []));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [w, workload] of WORKLOADS.entries()) {
      const operations = workload.operations(generator(1000 * (round + 1) + w), round, workload.ops);
      for (const [v, variant] of VARIANTS.entries()) {
        results[w]![v]!.push(await timed(operations, variant, clients.slice(0, workload.connections)));
      }
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }
  say(report(results));
  say(await planTimes(one[0]!));
  process.stdout.write(`total ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
} finally {
  await Promise.all(clients.map((c) => c.end().catch(() => {})));
  await database.close();
}

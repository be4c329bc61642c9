import { SwitchboardError } from '../../core/errors.js';
import type {
  WebhookDeliveryFilter,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookDeliveryStore,
  WebhookFinish,
} from '../../core/storage/index.js';
import { type Database, ms, msOrNull, prepared } from './database.js';
import { ATTEMPT_COLUMNS, attemptColumns, unnestAttempts } from './webhook-attempts.js';

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  leased_by: string | null;
  lease_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  traceparent: string | null;
  total?: string;
}

const COLUMNS =
  'id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, leased_by, lease_until, last_status_code, last_error, created_at, updated_at, traceparent';
const TABLE = 'switchboard_webhook_deliveries';

const toDelivery = (r: DeliveryRow): WebhookDeliveryRecord => ({
  id: r.id,
  endpointId: r.endpoint_id,
  eventId: r.event_id,
  eventType: r.event_type,
  payload: r.payload,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: msOrNull(r.next_attempt_at),
  leasedBy: r.leased_by,
  leaseUntil: msOrNull(r.lease_until),
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  createdAt: ms(r.created_at),
  updatedAt: ms(r.updated_at),
  traceparent: r.traceparent,
});

/** The filter as SQL over parameters `$1…$6` (endpoint, status, from, before, ids, event type). */
const FILTER = `($1::text IS NULL OR endpoint_id = $1) AND ($2::text IS NULL OR status = $2)
  AND ($3::bigint IS NULL OR created_at >= $3) AND ($4::bigint IS NULL OR created_at < $4)
  AND ($5::text[] IS NULL OR id = ANY($5)) AND ($6::text IS NULL OR event_type = $6)
  AND ($7::text IS NULL OR event_id = $7)`;

const filterValues = (f: WebhookDeliveryFilter & { readonly ids?: readonly string[] }): unknown[] => [
  f.endpointId ?? null,
  f.status ?? null,
  f.createdFrom ?? null,
  f.createdBefore ?? null,
  f.ids ? [...f.ids] : null,
  f.eventType ?? null,
  f.eventId ?? null,
];

// The queue's statements, prepared once per connection: a claim, a batch of outcomes and a fan-out each
// run one of them, many times a second under load.
const GET = prepared(`SELECT ${COLUMNS} FROM ${TABLE} WHERE id = $1`);
const INSERT_MANY = prepared(
  `INSERT INTO ${TABLE} (${COLUMNS})
   SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
     $7::int[], $8::bigint[], $9::text[], $10::bigint[], $11::int[], $12::text[],
     $13::bigint[], $14::bigint[], $15::text[])
   ON CONFLICT DO NOTHING RETURNING id`,
);
/**
 * The claim: migration 25's function, one round trip for what `claimDue` describes. `$1` now, `$2` the
 * default cap, `$3` the limit, `$4`/`$5` per-endpoint caps, `$6` the worker, `$7` the lease's end.
 */
const CLAIM = prepared(
  `SELECT ${COLUMNS} FROM switchboard_claim_webhook_deliveries(
     $1::bigint, $2::int, $3::int, $4::text[], $5::int[], $6::text, $7::bigint)`,
);
const FINISH_MANY = prepared(
  `UPDATE ${TABLE} d SET status = f.status, attempts = f.attempts, next_attempt_at = f.next_attempt_at,
     last_status_code = f.last_status_code, last_error = f.last_error, leased_by = NULL,
     lease_until = NULL, updated_at = f.at
   FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::bigint[], $7::int[],
     $8::text[], $9::bigint[])
     AS f(id, worker_id, lease_attempts, status, attempts, next_attempt_at, last_status_code, last_error, at)
   WHERE d.id = f.id AND d.leased_by = f.worker_id AND d.attempts = f.lease_attempts
   RETURNING d.id`,
);
/**
 * `finishSucceeded` in one statement: FINISH_MANY's update (`$1`…`$9`), the attempts of the deliveries
 * it wrote (`$10`… in the order given: WITH ORDINALITY keeps it for the sequence column), and the end of
 * their endpoints' failing runs. Every part sees one snapshot and commits together.
 */
const FINISH_SUCCEEDED = prepared(
  `WITH finished AS (${FINISH_MANY.text}),
   attempted AS (
     INSERT INTO switchboard_webhook_attempts (${ATTEMPT_COLUMNS})
     SELECT ${ATTEMPT_COLUMNS} FROM ${unnestAttempts(10)} WITH ORDINALITY
       AS a(${ATTEMPT_COLUMNS}, position)
     WHERE a.delivery_id IN (SELECT id FROM finished) ORDER BY a.position
     RETURNING endpoint_id
   ),
   healed AS (
     UPDATE switchboard_webhook_endpoints SET failing_since = NULL
     WHERE id IN (SELECT endpoint_id FROM attempted) AND failing_since IS NOT NULL
   )
   SELECT id FROM finished`,
);
const RELEASE = prepared(
  `UPDATE ${TABLE} SET leased_by = NULL, lease_until = NULL WHERE id = $1 AND leased_by = $2 RETURNING id`,
);

/** The finishes as one array per column, in FINISH_MANY's `unnest` order. */
function finishColumns(finishes: readonly WebhookFinish[]): unknown[][] {
  return [
    finishes.map((f) => f.id),
    finishes.map((f) => f.lease.workerId),
    finishes.map((f) => f.lease.attempts),
    finishes.map((f) => f.outcome.status),
    finishes.map((f) => f.outcome.attempts),
    finishes.map((f) => f.outcome.nextAttemptAt),
    finishes.map((f) => f.outcome.lastStatusCode),
    finishes.map((f) => f.outcome.lastError),
    finishes.map((f) => f.outcome.at),
  ];
}

const byDue = (a: WebhookDeliveryRecord, b: WebhookDeliveryRecord): number =>
  a.nextAttemptAt === b.nextAttemptAt
    ? a.id < b.id
      ? -1
      : 1
    : (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0);

/**
 * The delivery queue. `claimDue` is one call of a function (migration 25), so one short transaction in
 * one round trip: it picks the endpoints with the oldest claimable deliveries that are below their cap
 * (from the 256 oldest claimable rows, or by one probe of the partial due index per endpoint when a
 * few backlogs fill those), locks those endpoint rows in id order (so claimers never deadlock), then, in
 * a fresh snapshot that sees every lease committed before it, counts each endpoint's live leases and
 * leases the oldest due deliveries up to its cap, skipping rows another transaction holds (`SKIP
 * LOCKED`). Claimers of different endpoints never wait for each other; claimers of one endpoint wait a
 * few milliseconds. Finished deliveries are outside the partial indexes, so the size of the history
 * costs a claim nothing. A worker that dies holds its deliveries only until `lease_until`.
 */
export function postgresWebhookDeliveryStore(db: Database): WebhookDeliveryStore {
  return {
    async createIfAbsent(d) {
      const inserted = await db.row(
        `INSERT INTO ${TABLE} (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT DO NOTHING RETURNING id`,
        [
          d.id,
          d.endpointId,
          d.eventId,
          d.eventType,
          d.payload,
          d.status,
          d.attempts,
          d.nextAttemptAt,
          d.leasedBy,
          d.leaseUntil,
          d.lastStatusCode,
          d.lastError,
          d.createdAt,
          d.updatedAt,
          d.traceparent ?? null,
        ],
      );
      if (inserted) return true;
      const existing = await db.row(`SELECT 1 FROM ${TABLE} WHERE event_id = $1 AND endpoint_id = $2`, [
        d.eventId,
        d.endpointId,
      ]);
      if (existing) return false;
      throw new SwitchboardError('conflict', `Webhook delivery ${d.id} already exists.`);
    },

    async countPending() {
      // Counted from the partial index of pending deliveries.
      const row = await db.row<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${TABLE} WHERE status = 'pending'`,
      );
      return row?.n ?? 0;
    },

    async createManyIfAbsent(deliveries) {
      if (deliveries.length === 0) return 0;
      const column = <K extends keyof WebhookDeliveryRecord>(key: K) => deliveries.map((d) => d[key]);
      // A transaction, so a refused batch leaves nothing behind.
      return db.atomic(async (tx) => {
        const inserted = await tx.rows<{ id: string }>(INSERT_MANY, [
          column('id'),
          column('endpointId'),
          column('eventId'),
          column('eventType'),
          column('payload'),
          column('status'),
          column('attempts'),
          column('nextAttemptAt'),
          column('leasedBy'),
          column('leaseUntil'),
          column('lastStatusCode'),
          column('lastError'),
          column('createdAt'),
          column('updatedAt'),
          deliveries.map((d) => d.traceparent ?? null),
        ]);
        if (inserted.length === deliveries.length) return inserted.length;
        // Some were skipped: each must be a delivery that exists already, not an id taken by another.
        const done = new Set(inserted.map((r) => r.id));
        const skipped = deliveries.filter((d) => !done.has(d.id));
        const existing = await tx.row<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${TABLE} t
           JOIN unnest($1::text[], $2::text[]) AS k(event_id, endpoint_id)
             ON t.event_id = k.event_id AND t.endpoint_id = k.endpoint_id`,
          [skipped.map((d) => d.eventId), skipped.map((d) => d.endpointId)],
        );
        if ((existing?.n ?? 0) < skipped.length)
          throw new SwitchboardError('conflict', 'A webhook delivery id in the batch already exists.');
        return inserted.length;
      });
    },

    async get(id) {
      const row = await db.row<DeliveryRow>(GET, [id]);
      return row ? toDelivery(row) : null;
    },

    async list(filter, range) {
      const rows = await db.rows<DeliveryRow>(
        `SELECT t.total, d.* FROM (SELECT count(*) AS total FROM ${TABLE} WHERE ${FILTER}) t
         LEFT JOIN LATERAL (
           SELECT ${COLUMNS} FROM ${TABLE} WHERE ${FILTER}
           ORDER BY created_at DESC, id DESC LIMIT $8 OFFSET $9
         ) d ON true`,
        [...filterValues(filter), range.limit, range.offset],
      );
      return { items: rows.filter((r) => r.id !== null).map(toDelivery), total: Number(rows[0]?.total ?? 0) };
    },

    async claimDue({ now, limit, leaseMs, workerId, maxPerEndpoint, endpointLimits }) {
      const rows = await db.rows<DeliveryRow>(CLAIM, [
        now,
        maxPerEndpoint,
        limit,
        [...(endpointLimits?.keys() ?? [])],
        [...(endpointLimits?.values() ?? [])],
        workerId,
        now + leaseMs,
      ]);
      return rows.map(toDelivery).sort(byDue);
    },

    async finish(id, lease, o) {
      const row = await db.row(
        `UPDATE ${TABLE} SET status = $4, attempts = $5, next_attempt_at = $6, last_status_code = $7,
           last_error = $8, leased_by = NULL, lease_until = NULL, updated_at = $9
         WHERE id = $1 AND leased_by = $2 AND attempts = $3 RETURNING id`,
        [
          id,
          lease.workerId,
          lease.attempts,
          o.status,
          o.attempts,
          o.nextAttemptAt,
          o.lastStatusCode,
          o.lastError,
          o.at,
        ],
      );
      return row !== undefined;
    },

    async finishMany(finishes) {
      if (finishes.length === 0) return [];
      const rows = await db.rows<{ id: string }>(FINISH_MANY, finishColumns(finishes));
      const written = new Set(rows.map((r) => r.id));
      return finishes.filter((f) => written.has(f.id)).map((f) => f.id);
    },

    async finishSucceeded(finishes, attempts) {
      if (attempts.some((a) => !a.succeeded))
        throw new Error('finishSucceeded takes succeeded attempts only; write failures in a transaction.');
      if (finishes.length === 0) return [];
      const rows = await db.rows<{ id: string }>(FINISH_SUCCEEDED, [
        ...finishColumns(finishes),
        ...attemptColumns(attempts),
      ]);
      const written = new Set(rows.map((r) => r.id));
      return finishes.filter((f) => written.has(f.id)).map((f) => f.id);
    },

    async release(id, workerId) {
      const row = await db.row(RELEASE, [id, workerId]);
      return row !== undefined;
    },

    async requeue(filter, now) {
      const rows = await db.rows(
        `UPDATE ${TABLE} SET status = 'pending', attempts = 0, next_attempt_at = $8, leased_by = NULL,
           lease_until = NULL, updated_at = $8
         WHERE status <> 'pending' AND ${FILTER} RETURNING id`,
        [...filterValues(filter), now],
      );
      return rows.length;
    },

    async expedite(filter, now) {
      const rows = await db.rows(
        `UPDATE ${TABLE} SET next_attempt_at = $8, leased_by = NULL, lease_until = NULL, updated_at = $8
         WHERE status = 'pending' AND attempts >= 1 AND (lease_until IS NULL OR lease_until <= $8)
           AND ${FILTER} RETURNING id`,
        [...filterValues(filter), now],
      );
      return rows.length;
    },

    async prune(before) {
      // One statement: the deliveries and their attempts go together, even with concurrent sweepers.
      const row = await db.row<{ n: number }>(
        `WITH gone AS (
           DELETE FROM ${TABLE} WHERE status <> 'pending' AND updated_at < $1 RETURNING id
         ), attempts AS (
           DELETE FROM switchboard_webhook_attempts WHERE delivery_id IN (SELECT id FROM gone)
         )
         SELECT count(*)::int AS n FROM gone`,
        [before],
      );
      return row?.n ?? 0;
    },
  };
}

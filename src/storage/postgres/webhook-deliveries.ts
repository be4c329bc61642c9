import { SwitchboardError } from '../../core/errors.js';
import { erasedPayload } from '../../core/storage/erasure.js';
import type {
  WebhookDeliveryFilter,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookDeliveryStore,
  WebhookFinish,
} from '../../core/storage/index.js';
import { type Database, ms, msOrNull, prepared } from './database.js';
import { ATTEMPT_COLUMNS, attemptColumns, attemptValues, unnestAttempts } from './webhook-attempts.js';

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
  owner: string | null;
  erased_at: string | null;
  subject: string | null;
  sequence: string | null;
  held_announced_at: string | null;
  total?: string;
}

const COLUMNS =
  'id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, leased_by, lease_until, last_status_code, last_error, created_at, updated_at, traceparent, owner, erased_at, subject, sequence, held_announced_at';
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
  owner: r.owner,
  erasedAt: msOrNull(r.erased_at),
  subject: r.subject,
  sequence: r.sequence === null ? null : Number(r.sequence),
  heldAnnouncedAt: msOrNull(r.held_announced_at),
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
/**
 * A fan-out's deliveries. Those of an event with a client first lock the event's outbox row (`FOR
 * SHARE`): an erasure of that client, which updates the row, waits for this write to commit and then
 * erases these deliveries too; or it went first, and a delivery made from a copy read before it (the
 * row is a tombstone now, the delivery is not) is left out.
 */
const INSERT_MANY = prepared(
  `WITH given AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
       $7::int[], $8::bigint[], $9::text[], $10::bigint[], $11::int[], $12::text[],
       $13::bigint[], $14::bigint[], $15::text[], $16::text[], $17::bigint[], $18::text[], $19::bigint[],
       $20::bigint[]) AS g(${COLUMNS})
   ), events AS (
     SELECT id, redacted_at FROM switchboard_outbox
     WHERE id IN (SELECT event_id FROM given WHERE owner IS NOT NULL) ORDER BY seq FOR SHARE
   )
   INSERT INTO ${TABLE} (${COLUMNS})
   SELECT g.* FROM given g
   WHERE g.erased_at IS NOT NULL
     OR NOT EXISTS (SELECT 1 FROM events e WHERE e.id = g.event_id AND e.redacted_at IS NOT NULL)
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
// An erased delivery's outcome keeps no error text: the attempt was in flight when its client was erased.
const FINISH_MANY = prepared(
  `UPDATE ${TABLE} d SET status = f.status, attempts = f.attempts, next_attempt_at = f.next_attempt_at,
     last_status_code = f.last_status_code,
     last_error = CASE WHEN d.erased_at IS NULL THEN f.last_error END, leased_by = NULL,
     lease_until = NULL, updated_at = f.at
   FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::int[], $6::bigint[], $7::int[],
     $8::text[], $9::bigint[])
     AS f(id, worker_id, lease_attempts, status, attempts, next_attempt_at, last_status_code, last_error, at)
   WHERE d.id = f.id AND d.leased_by = f.worker_id AND d.attempts = f.lease_attempts
   RETURNING d.id, d.erased_at`,
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
     SELECT ${attemptValues('f.erased_at IS NOT NULL')} FROM ${unnestAttempts(10)} WITH ORDINALITY
       AS a(${ATTEMPT_COLUMNS}, position)
     JOIN finished f ON f.id = a.delivery_id ORDER BY a.position
     RETURNING endpoint_id
   ),
   healed AS (
     UPDATE switchboard_webhook_endpoints SET failing_since = NULL
     WHERE id IN (SELECT endpoint_id FROM attempted) AND failing_since IS NOT NULL
   )
   SELECT id FROM finished`,
);
/**
 * `listHeld`: the endpoint's subjects with more than one pending delivery (from the partial index of
 * pending deliveries with a subject), each with its first delivery, when that one failed at least once.
 */
const HELD = `WITH subjects AS (
    SELECT subject, min(sequence) AS first, count(*) - 1 AS waiting FROM ${TABLE}
    WHERE endpoint_id = $1 AND status = 'pending' AND subject IS NOT NULL
    GROUP BY subject HAVING count(*) > 1
  )
  SELECT ${COLUMNS.split(', ')
    .map((c) => `d.${c}`)
    .join(', ')}, s.waiting::int AS waiting,
    (SELECT min(w.created_at) FROM ${TABLE} w WHERE w.endpoint_id = $1 AND w.status = 'pending'
       AND w.subject = s.subject AND w.sequence > s.first) AS since
  FROM subjects s JOIN ${TABLE} d ON d.endpoint_id = $1 AND d.status = 'pending' AND d.subject = s.subject
    AND d.sequence = s.first
  WHERE d.attempts >= 1
  ORDER BY since, s.subject LIMIT $2`;
const SKIP = `UPDATE ${TABLE} SET status = 'dead', next_attempt_at = NULL, leased_by = NULL, lease_until = NULL,
    last_error = $2, updated_at = $3
  WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS}`;
const ANNOUNCE_HELD = `UPDATE ${TABLE} SET held_announced_at = $2
  WHERE id = $1 AND status = 'pending' AND held_announced_at IS NULL RETURNING id`;
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

/** The deliveries as one array per column, in INSERT_MANY's `unnest` order. */
function deliveryColumns(deliveries: readonly WebhookDeliveryRecord[]): unknown[][] {
  const column = <K extends keyof WebhookDeliveryRecord>(key: K) => deliveries.map((d) => d[key]);
  return [
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
    deliveries.map((d) => d.owner ?? null),
    deliveries.map((d) => d.erasedAt ?? null),
    deliveries.map((d) => d.subject ?? null),
    deliveries.map((d) => d.sequence ?? null),
    deliveries.map((d) => d.heldAnnouncedAt ?? null),
  ];
}

/**
 * `createManyIfAbsent`, in a transaction so that a refused batch leaves nothing behind. A delivery left
 * out must exist already for its (event, endpoint), or be one an erasure overtook; any other is an id
 * taken by another delivery.
 */
async function createMany(db: Database, deliveries: readonly WebhookDeliveryRecord[]): Promise<number> {
  if (deliveries.length === 0) return 0;
  return db.atomic(async (tx) => {
    const inserted = await tx.rows<{ id: string }>(INSERT_MANY, deliveryColumns(deliveries));
    if (inserted.length === deliveries.length) return inserted.length;
    const done = new Set(inserted.map((r) => r.id));
    const skipped = deliveries.filter((d) => !done.has(d.id));
    const explained = await tx.row<{ n: number }>(
      `SELECT count(*)::int AS n FROM unnest($1::text[], $2::text[], $3::boolean[]) AS k(event_id, endpoint_id, erased)
       WHERE EXISTS (SELECT 1 FROM ${TABLE} t WHERE t.event_id = k.event_id AND t.endpoint_id = k.endpoint_id)
         OR (NOT k.erased AND EXISTS (
           SELECT 1 FROM switchboard_outbox o WHERE o.id = k.event_id AND o.redacted_at IS NOT NULL))`,
      [
        skipped.map((d) => d.eventId),
        skipped.map((d) => d.endpointId),
        skipped.map((d) => d.erasedAt != null),
      ],
    );
    if ((explained?.n ?? 0) < skipped.length)
      throw new SwitchboardError(
        'conflict',
        `Webhook delivery ${skipped.length === 1 ? `${skipped[0]!.id} ` : 'id in the batch '}already exists.`,
      );
    return inserted.length;
  });
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
      return (await createMany(db, [d])) === 1;
    },

    async countPending() {
      // Counted from the partial index of pending deliveries.
      const row = await db.row<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${TABLE} WHERE status = 'pending'`,
      );
      return row?.n ?? 0;
    },

    async createManyIfAbsent(deliveries) {
      return createMany(db, deliveries);
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

    async prune(before, { now } = {}) {
      // One statement: the deliveries and their attempts go together, even with concurrent sweepers.
      // Endpoints with a retention of their own (`own`, only given `now`) are pruned by it, apart.
      const row = await db.row<{ n: number }>(
        `WITH own AS (
           SELECT id, $2::bigint - log_retention_days::bigint * 86400000 AS before
           FROM switchboard_webhook_endpoints WHERE $2::bigint IS NOT NULL AND log_retention_days IS NOT NULL
         ), gone AS (
           DELETE FROM ${TABLE} d WHERE status <> 'pending' AND updated_at < $1
             AND NOT EXISTS (SELECT 1 FROM own WHERE own.id = d.endpoint_id) RETURNING d.id
         ), gone_own AS (
           DELETE FROM ${TABLE} d USING own
           WHERE d.endpoint_id = own.id AND d.status <> 'pending' AND d.updated_at < own.before RETURNING d.id
         ), attempts AS (
           DELETE FROM switchboard_webhook_attempts
           WHERE delivery_id IN (SELECT id FROM gone UNION ALL SELECT id FROM gone_own)
         )
         SELECT (SELECT count(*) FROM gone)::int + (SELECT count(*) FROM gone_own)::int AS n`,
        [before, now ?? null],
      );
      return row?.n ?? 0;
    },

    async listHeld(endpointId, limit) {
      const rows = await db.rows<DeliveryRow & { waiting: number; since: string }>(HELD, [endpointId, limit]);
      return rows.map((r) => ({
        subject: r.subject!,
        blocking: toDelivery(r),
        waiting: r.waiting,
        since: ms(r.since),
      }));
    },

    async skip(id, reason, at) {
      const row = await db.row<DeliveryRow>(SKIP, [id, reason, at]);
      return row ? toDelivery(row) : null;
    },

    async announceHeld(id, at) {
      return (await db.row(ANNOUNCE_HELD, [id, at])) !== undefined;
    },

    async erase({ owner, keep, at }) {
      return db.atomic(async (tx) => {
        // Locked first: an attempt in flight finishes (and its outcome commits) before this goes on,
        // so the attempts statement below, in a later snapshot, sees it.
        const rows = await tx.rows<{ id: string; payload: string }>(
          `SELECT id, payload FROM ${TABLE} WHERE owner = $1 AND erased_at IS NULL ORDER BY id FOR UPDATE`,
          [owner],
        );
        if (rows.length === 0) return 0;
        const ids = rows.map((r) => r.id);
        await tx.rows(
          `UPDATE ${TABLE} d SET payload = p.payload, last_error = NULL, erased_at = $3
           FROM unnest($1::text[], $2::text[]) AS p(id, payload) WHERE d.id = p.id`,
          [ids, rows.map((r) => erasedPayload(r.payload, keep)), at],
        );
        await tx.rows(
          `UPDATE switchboard_webhook_attempts SET response_excerpt = NULL, error = NULL,
             request_headers = NULL, response_headers = NULL
           WHERE delivery_id = ANY($1::text[])`,
          [ids],
        );
        return rows.length;
      });
    },
  };
}

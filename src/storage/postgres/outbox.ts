import type { DomainEvent } from '../../core/events.js';
import type { FeedEvent, OutboxStore } from '../../core/storage/index.js';
import { FEED_READ_WINDOW } from '../../core/storage/outbox.js';
import { type Database, prepared } from './database.js';

interface EventRow {
  id: string;
  type: string;
  occurred_at: string;
  data: Record<string, unknown>;
  traceparent?: string | null;
  owner?: string | null;
  via?: string | null;
  subject?: string | null;
  sequence?: string | null;
  redacted_at?: string | null;
}

/** A row of a feed read: the feed's horizon and last position, and an event's columns (null when none). */
type FeedRow = EventRow & { horizon: string; last_position: string; position: string | null };

export function toEvent(row: EventRow): DomainEvent {
  const event: { -readonly [K in keyof DomainEvent]: DomainEvent[K] } = {
    id: row.id,
    type: row.type,
    occurredAt: row.occurred_at,
    data: row.data,
  };
  if (row.subject) event.subject = row.subject;
  if (row.sequence) event.sequence = Number(row.sequence);
  if (row.owner) event.owner = row.owner;
  if (row.traceparent) event.traceparent = row.traceparent;
  if (row.via) event.via = row.via;
  if (row.redacted_at) event.redacted = true;
  return event;
}

// Every write appends, and the relay claims and flags: prepared once per connection.
const APPEND = prepared(
  `INSERT INTO switchboard_outbox (id, type, occurred_at, data, traceparent, owner, via)
   VALUES ($1, $2, $3, $4, $5, $6, $7)`,
);
// The subject's next sequence and the event in one statement; the subject's row stays locked to commit.
const APPEND_OF_SUBJECT = prepared(
  `WITH next AS (
     INSERT INTO switchboard_subjects AS s (subject, last_sequence) VALUES ($8, 1)
     ON CONFLICT (subject) DO UPDATE SET last_sequence = s.last_sequence + 1
     RETURNING last_sequence
   )
   INSERT INTO switchboard_outbox (id, type, occurred_at, data, traceparent, owner, via, subject, sequence)
   SELECT $1, $2, $3, $4, $5, $6, $7, $8, last_sequence FROM next`,
);
const CLAIM = prepared(
  `WITH free AS (
     SELECT seq FROM switchboard_outbox WHERE NOT relayed AND lease_until <= $1
     ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED
   )
   UPDATE switchboard_outbox o SET lease_until = $3 FROM free WHERE o.seq = free.seq
   RETURNING o.seq, o.id, o.type, o.occurred_at, o.data, o.traceparent, o.owner, o.via, o.subject, o.sequence, o.redacted_at`,
);
/** `data` cut to the fields in `$2`, in their order (erasedData in SQL). */
const ERASED_DATA = `COALESCE((SELECT json_object_agg(e.key, e.value ORDER BY e.n)
  FROM json_each(data) WITH ORDINALITY AS e(key, value, n) WHERE e.key = ANY($2::text[])), '{}'::json)`;
/**
 * `erase` in one statement: the outbox's events of the client, and the bus's copies of them kept for
 * listeners that reconnect (ten minutes of them), which are the event log too. Rows are locked in
 * `seq` order, as a fan-out's `FOR SHARE` and the feed's numbering take them, so none of them deadlock.
 */
const ERASE = `WITH locked AS (
    SELECT seq FROM switchboard_outbox WHERE owner = $1 AND redacted_at IS NULL ORDER BY seq FOR UPDATE
  ), erased AS (
    UPDATE switchboard_outbox o SET data = ${ERASED_DATA}, redacted_at = $3 FROM locked
    WHERE o.seq = locked.seq RETURNING 1
  ), bus AS (
    UPDATE switchboard_bus_events SET data = ${ERASED_DATA} WHERE owner = $1
  )
  SELECT count(*)::int AS n FROM erased`;
const MARK_RELAYED = prepared('UPDATE switchboard_outbox SET relayed = true WHERE id = ANY($1::text[])');
/** How many events one read places at most (those committed since the last read, usually a few). */
const PLACE = prepared('SELECT switchboard_place_events(10000)');
/**
 * A page of the feed and the feed's horizon and last position, in one snapshot. Arguments: after (null:
 * from the horizon), limit, and the types (in READ_OF_TYPES).
 */
const readStatement = (ofTypes: boolean) =>
  prepared(
    `SELECT f.horizon, f.last_position, e.*
     FROM (SELECT COALESCE(max(horizon), 0) AS horizon, COALESCE(max(last_position), 0) AS last_position
           FROM switchboard_event_feed) f
     LEFT JOIN LATERAL (
       SELECT position, id, type, occurred_at, data, traceparent, owner, via, subject, sequence, redacted_at
       FROM switchboard_outbox
       WHERE position > GREATEST($1::bigint, f.horizon)
         AND position <= GREATEST($1::bigint, f.horizon) + ${FEED_READ_WINDOW}${ofTypes ? ' AND type = ANY($3::text[])' : ''}
       ORDER BY position LIMIT $2
     ) e ON true`,
  );
const READ = readStatement(false);
const READ_OF_TYPES = readStatement(true);
/**
 * The events that occurred before $1 (ISO text, as occurred_at) from the horizon up to the first that
 * must stay: the horizon moves past them all, the relayed ones are deleted (one the relay still holds
 * stays for it, below the horizon), in one statement.
 */
const PRUNE = `WITH feed AS (
    SELECT COALESCE(max(horizon), 0) AS horizon FROM switchboard_event_feed
  ), keep AS (
    SELECT position FROM switchboard_outbox, feed
    WHERE position > feed.horizon AND occurred_at >= $1 ORDER BY position LIMIT 1
  ), bound AS (
    SELECT COALESCE((SELECT position FROM keep), 9223372036854775807) AS position
  ), passed AS (
    SELECT max(o.position) AS position FROM switchboard_outbox o, feed, bound
    WHERE o.position > feed.horizon AND o.position < bound.position
  ), gone AS (
    DELETE FROM switchboard_outbox o USING bound WHERE o.relayed AND o.position < bound.position
    RETURNING 1
  ), moved AS (
    UPDATE switchboard_event_feed f SET horizon = passed.position FROM passed
    WHERE passed.position > f.horizon
  )
  SELECT count(*)::int AS n FROM gone`;

/**
 * The outbox on PostgreSQL. `claim` locks the oldest free rows with `FOR UPDATE SKIP LOCKED`, so relays
 * in many processes take disjoint batches without waiting on each other, and stamps a lease: a relay
 * that dies holds its events only until the lease ends. Relayed events are flagged, and stay for the
 * feed until `prune` deletes them.
 */
export function postgresOutboxStore(db: Database): OutboxStore {
  return {
    async append(event) {
      // `json`, not `jsonb`: the data comes back with its keys in the order they were written.
      const values = [
        event.id,
        event.type,
        event.occurredAt,
        JSON.stringify(event.data),
        event.traceparent ?? null,
        event.owner ?? null,
        event.via ?? null,
      ];
      if (event.subject === undefined) await db.rows(APPEND, values);
      else await db.rows(APPEND_OF_SUBJECT, [...values, event.subject]);
    },

    async claim({ now, limit, leaseMs }) {
      // Events committed since are numbered for the feed before the relay wakes its readers on the bus,
      // so their reads rarely find any left to number (and take no turn).
      await db.rows(PLACE);
      const rows = await db.rows<EventRow & { seq: string }>(CLAIM, [now, limit, now + leaseMs]);
      // UPDATE … RETURNING does not keep the CTE's order.
      return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toEvent);
    },

    async backlog() {
      const row = await db.row<{ n: number }>(
        'SELECT count(*)::int AS n FROM switchboard_outbox WHERE NOT relayed',
      );
      return row?.n ?? 0;
    },

    async read({ after, limit, types }) {
      // Events committed before this read get their positions first (a no-op when none wait).
      await db.rows(PLACE);
      const rows = await db.rows<FeedRow>(
        types ? READ_OF_TYPES : READ,
        types ? [after ?? 0, limit, [...types]] : [after ?? 0, limit],
      );
      const first = rows[0]!;
      const horizon = Number(first.horizon);
      const events: FeedEvent[] = rows
        .filter((row) => row.position !== null)
        .map((row) => ({ position: Number(row.position), event: toEvent(row) }));
      const from = Math.max(after ?? 0, horizon);
      const through =
        events.length === limit
          ? events.at(-1)!.position
          : Math.max(after ?? 0, Math.min(Number(first.last_position), from + FEED_READ_WINDOW));
      return { events, through, horizon };
    },

    async prune(before) {
      await db.rows(PLACE);
      const row = await db.row<{ n: number }>(PRUNE, [new Date(before).toISOString()]);
      return row?.n ?? 0;
    },

    async markRelayed(ids) {
      if (ids.length === 0) return;
      await db.rows(MARK_RELAYED, [[...ids]]);
    },

    async erase({ owner, keep, at }) {
      const row = await db.row<{ n: number }>(ERASE, [owner, [...keep], at]);
      return row?.n ?? 0;
    },
  };
}

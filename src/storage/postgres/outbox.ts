import type { DomainEvent } from '../../core/events.js';
import type { OutboxStore } from '../../core/storage/index.js';
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
}

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
  return event;
}

// Every write appends, and the relay claims and deletes: prepared once per connection.
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
     SELECT seq FROM switchboard_outbox WHERE lease_until <= $1
     ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED
   )
   UPDATE switchboard_outbox o SET lease_until = $3 FROM free WHERE o.seq = free.seq
   RETURNING o.seq, o.id, o.type, o.occurred_at, o.data, o.traceparent, o.owner, o.via, o.subject, o.sequence`,
);
const MARK_RELAYED = prepared('DELETE FROM switchboard_outbox WHERE id = ANY($1::text[])');

/**
 * The outbox on PostgreSQL. `claim` locks the oldest free rows with `FOR UPDATE SKIP LOCKED`, so relays
 * in many processes take disjoint batches without waiting on each other, and stamps a lease: a relay
 * that dies holds its events only until the lease ends. Relayed events are deleted.
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
      const rows = await db.rows<EventRow & { seq: string }>(CLAIM, [now, limit, now + leaseMs]);
      // UPDATE … RETURNING does not keep the CTE's order.
      return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toEvent);
    },

    async backlog() {
      const row = await db.row<{ n: number }>('SELECT count(*)::int AS n FROM switchboard_outbox');
      return row?.n ?? 0;
    },

    async markRelayed(ids) {
      if (ids.length === 0) return;
      await db.rows(MARK_RELAYED, [[...ids]]);
    },
  };
}

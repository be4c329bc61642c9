import type { WebhookAttemptRecord, WebhookAttemptStore } from '../../core/storage/index.js';
import { type Database, ms, prepared } from './database.js';

interface AttemptRow {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  number: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  response_excerpt: string | null;
  error: string | null;
  succeeded: boolean;
  request_headers: Record<string, string> | null;
  response_headers: Record<string, string> | null;
}

export const ATTEMPT_COLUMNS =
  'id, delivery_id, endpoint_id, number, started_at, duration_ms, status_code, response_excerpt, error, succeeded, request_headers, response_headers';

// `json`, not `jsonb`: the headers come back in the order they were sent.
const headersOf = (a: WebhookAttemptRecord): string | null =>
  a.requestHeaders && JSON.stringify(a.requestHeaders);
const answerHeadersOf = (a: WebhookAttemptRecord): string | null =>
  a.responseHeaders && JSON.stringify(a.responseHeaders);

/** The attempts as one array per column, in {@link ATTEMPT_COLUMNS} order: what `unnest` takes. */
export function attemptColumns(attempts: readonly WebhookAttemptRecord[]): unknown[][] {
  const column = <K extends keyof WebhookAttemptRecord>(key: K) => attempts.map((a) => a[key]);
  return [
    column('id'),
    column('deliveryId'),
    column('endpointId'),
    column('number'),
    column('startedAt'),
    column('durationMs'),
    column('statusCode'),
    column('responseExcerpt'),
    column('error'),
    column('succeeded'),
    attempts.map(headersOf),
    attempts.map(answerHeadersOf),
  ];
}

/** `unnest` of {@link attemptColumns} from parameter `$first` on, typed column by column. */
export function unnestAttempts(first: number): string {
  const types = [
    'text',
    'text',
    'text',
    'int',
    'bigint',
    'int',
    'int',
    'text',
    'text',
    'boolean',
    'json',
    'json',
  ];
  return `unnest(${types.map((t, i) => `$${first + i}::${t}[]`).join(', ')})`;
}

/**
 * The columns of attempts `a` (from an unnest) to insert, their texts left out when `erased` (an SQL
 * condition) holds: an attempt that ends after its delivery was erased keeps none of them.
 */
export function attemptValues(erased: string): string {
  const texts = new Set(['response_excerpt', 'error', 'request_headers', 'response_headers']);
  return ATTEMPT_COLUMNS.split(', ')
    .map((c) => (texts.has(c) ? `CASE WHEN ${erased} THEN NULL ELSE a.${c} END` : `a.${c}`))
    .join(', ');
}

/** Inserts the attempts of `unnest` `a` (with its `position`) in order, minding erased deliveries. */
const INSERT_SQL = (first: number): string =>
  `INSERT INTO switchboard_webhook_attempts (${ATTEMPT_COLUMNS})
   SELECT ${attemptValues('d.erased_at IS NOT NULL')}
   FROM ${unnestAttempts(first)} WITH ORDINALITY AS a(${ATTEMPT_COLUMNS}, position)
   LEFT JOIN switchboard_webhook_deliveries d ON d.id = a.delivery_id
   ORDER BY a.position`;

const toAttempt = (r: AttemptRow): WebhookAttemptRecord => ({
  id: r.id,
  deliveryId: r.delivery_id,
  endpointId: r.endpoint_id,
  number: r.number,
  startedAt: ms(r.started_at),
  durationMs: r.duration_ms,
  statusCode: r.status_code,
  responseExcerpt: r.response_excerpt,
  error: r.error,
  succeeded: r.succeeded,
  requestHeaders: r.request_headers,
  responseHeaders: r.response_headers,
});

// Every batch of outcomes with a failure runs it. unnest keeps the order given, so the sequence column
// orders them as inserted.
const INSERT_MANY = prepared(INSERT_SQL(1));

/** Attempts in insertion order (a sequence column), as the memory adapter keeps them. */
export function postgresWebhookAttemptStore(db: Database): WebhookAttemptStore {
  return {
    async insert(a) {
      await db.rows(INSERT_MANY, attemptColumns([a]));
    },
    async insertMany(attempts) {
      if (attempts.length === 0) return;
      await db.rows(INSERT_MANY, attemptColumns(attempts));
    },
    async listByDelivery(deliveryId) {
      const rows = await db.rows<AttemptRow>(
        `SELECT ${ATTEMPT_COLUMNS} FROM switchboard_webhook_attempts WHERE delivery_id = $1 ORDER BY seq`,
        [deliveryId],
      );
      return rows.map(toAttempt);
    },
    async listFailures(endpointId, limit) {
      // The partial index of failed attempts per endpoint, newest first: a few rows read, whatever the history.
      const rows = await db.rows<AttemptRow>(
        `SELECT ${ATTEMPT_COLUMNS} FROM switchboard_webhook_attempts WHERE endpoint_id = $1 AND NOT succeeded
         ORDER BY started_at DESC, seq DESC LIMIT $2`,
        [endpointId, limit],
      );
      return rows.map(toAttempt);
    },
    async activity(endpointIds, since) {
      const ids = [...new Set(endpointIds)];
      if (ids.length === 0) return [];
      // Both reads walk the (endpoint_id, started_at) index: the window's rows and one row per endpoint.
      const [hours, latest] = await Promise.all([
        db.rows<{ endpoint_id: string; hour: number; succeeded: number; failed: number }>(
          `SELECT endpoint_id, floor((started_at - $2) / 3600000)::int AS hour,
             count(*) FILTER (WHERE succeeded)::int AS succeeded, count(*) FILTER (WHERE NOT succeeded)::int AS failed
           FROM switchboard_webhook_attempts WHERE endpoint_id = ANY($1) AND started_at >= $2
           GROUP BY 1, 2 ORDER BY 1, 2`,
          [ids, since],
        ),
        db.rows<AttemptRow>(
          `SELECT a.* FROM unnest($1::text[]) AS e(id) CROSS JOIN LATERAL (
             SELECT ${ATTEMPT_COLUMNS} FROM switchboard_webhook_attempts WHERE endpoint_id = e.id
             ORDER BY started_at DESC, seq DESC LIMIT 1) a`,
          [ids],
        ),
      ]);
      return ids.map((endpointId) => ({
        endpointId,
        hours: hours
          .filter((h) => h.endpoint_id === endpointId)
          .map(({ hour, succeeded, failed }) => ({ hour, succeeded, failed })),
        latest: (() => {
          const row = latest.find((r) => r.endpoint_id === endpointId);
          return row ? toAttempt(row) : null;
        })(),
      }));
    },
  };
}

import { SwitchboardError } from '../../core/errors.js';
import type {
  WebhookEndpointDisabledReason,
  WebhookEndpointRecord,
  WebhookEndpointStore,
  WebhookOrdering,
  WebhookPayloadMode,
  WebhookSecretRecord,
  WebhookSignature,
} from '../../core/storage/index.js';
import { type Database, ms, msOrNull, prepared } from './database.js';

interface EndpointRow {
  id: string;
  url: string;
  description: string;
  event_types: string[];
  secrets: WebhookSecretRecord[];
  scheme: WebhookEndpointRecord['scheme'];
  api_version: number;
  enabled: boolean;
  disabled_reason: WebhookEndpointDisabledReason | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
  version: number;
  log_retention_days: number | null;
  signature: WebhookSignature;
  ordering: WebhookOrdering;
  retry_schedule: number[] | null;
  headers: Record<string, string> | null;
  max_per_second: number | null;
  payload: WebhookPayloadMode | null;
  total?: string;
}

const COLUMNS =
  'id, url, description, event_types, secrets, scheme, enabled, disabled_reason, failing_since, created_at, updated_at, version, api_version, log_retention_days, signature, ordering, retry_schedule, headers, max_per_second, payload';

const toEndpoint = (r: EndpointRow): WebhookEndpointRecord => ({
  id: r.id,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types,
  secrets: r.secrets,
  scheme: r.scheme,
  apiVersion: r.api_version,
  enabled: r.enabled,
  disabledReason: r.disabled_reason,
  failingSince: msOrNull(r.failing_since),
  createdAt: ms(r.created_at),
  updatedAt: ms(r.updated_at),
  version: r.version,
  logRetentionDays: r.log_retention_days,
  signature: r.signature,
  ordering: r.ordering,
  // The policy fields an endpoint has, and no key for those it has not (as the memory store keeps them).
  ...(r.retry_schedule !== null ? { retrySchedule: r.retry_schedule } : {}),
  ...(r.headers !== null ? { headers: r.headers } : {}),
  ...(r.max_per_second !== null ? { maxPerSecond: r.max_per_second } : {}),
  ...(r.payload !== null ? { payload: r.payload } : {}),
});

const values = (e: WebhookEndpointRecord): unknown[] => [
  e.id,
  e.url,
  e.description,
  e.eventTypes,
  JSON.stringify(e.secrets),
  e.scheme,
  e.enabled,
  e.disabledReason,
  e.failingSince,
  e.createdAt,
  e.updatedAt,
  e.version,
  e.apiVersion,
  e.logRetentionDays ?? null,
  e.signature ?? 'hmac',
  e.ordering ?? 'none',
  e.retrySchedule ?? null,
  e.headers ? JSON.stringify(e.headers) : null,
  e.maxPerSecond ?? null,
  e.payload ?? null,
];

// What the dispatcher runs for every claim and every batch of outcomes.
const GET = prepared(`SELECT ${COLUMNS} FROM switchboard_webhook_endpoints WHERE id = $1`);
/** Writes only when failing_since changes; otherwise reads the row as it is. */
const RECORD_OUTCOME = prepared(
  `WITH changed AS (
     UPDATE switchboard_webhook_endpoints
     SET failing_since = CASE WHEN $2 THEN NULL ELSE COALESCE(failing_since, $3) END
     WHERE id = $1 AND failing_since IS DISTINCT FROM (CASE WHEN $2 THEN NULL ELSE COALESCE(failing_since, $3) END)
     RETURNING ${COLUMNS}
   )
   SELECT * FROM changed
   UNION ALL
   SELECT ${COLUMNS} FROM switchboard_webhook_endpoints
   WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM changed)`,
);
const DISABLE = prepared(
  `UPDATE switchboard_webhook_endpoints
   SET enabled = false, disabled_reason = $2, updated_at = $3, version = version + 1
   WHERE id = $1 AND enabled RETURNING id`,
);

export function postgresWebhookEndpointStore(db: Database): WebhookEndpointStore {
  return {
    async get(id) {
      const row = await db.row<EndpointRow>(GET, [id]);
      return row ? toEndpoint(row) : null;
    },
    async list(range) {
      const rows = await db.rows<EndpointRow>(
        `SELECT t.total, e.* FROM (SELECT count(*) AS total FROM switchboard_webhook_endpoints) t
         LEFT JOIN LATERAL (
           SELECT ${COLUMNS} FROM switchboard_webhook_endpoints ORDER BY created_at, id LIMIT $1 OFFSET $2
         ) e ON true`,
        [range.limit, range.offset],
      );
      return { items: rows.filter((r) => r.id !== null).map(toEndpoint), total: Number(rows[0]?.total ?? 0) };
    },
    async listEnabled() {
      const rows = await db.rows<EndpointRow>(
        `SELECT ${COLUMNS} FROM switchboard_webhook_endpoints WHERE enabled ORDER BY created_at, id`,
      );
      return rows.map(toEndpoint);
    },
    async insert(endpoint) {
      const inserted = await db.row(
        `INSERT INTO switchboard_webhook_endpoints (${COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) ON CONFLICT DO NOTHING RETURNING id`,
        values(endpoint),
      );
      if (!inserted)
        throw new SwitchboardError('conflict', `Webhook endpoint ${endpoint.id} already exists.`);
    },
    async update(endpoint, expectedVersion) {
      const row = await db.row(
        `UPDATE switchboard_webhook_endpoints SET url = $2, description = $3, event_types = $4, secrets = $5,
           scheme = $6, enabled = $7, disabled_reason = $8, failing_since = $9, created_at = $10,
           updated_at = $11, version = $12, api_version = $13, log_retention_days = $14,
           signature = $15, ordering = $16, retry_schedule = $17, headers = $18, max_per_second = $19,
           payload = $20
         WHERE id = $1 AND version = $21 RETURNING id`,
        [...values(endpoint), expectedVersion],
      );
      return row !== undefined;
    },
    async delete(id) {
      const row = await db.row<{ n: string }>(
        `WITH endpoint AS (DELETE FROM switchboard_webhook_endpoints WHERE id = $1 RETURNING id),
              deliveries AS (DELETE FROM switchboard_webhook_deliveries
                             WHERE endpoint_id = $1 AND EXISTS (SELECT 1 FROM endpoint) RETURNING id),
              attempts AS (DELETE FROM switchboard_webhook_attempts
                           WHERE delivery_id IN (SELECT id FROM deliveries) RETURNING 1)
         SELECT (SELECT count(*) FROM endpoint) + 0 * (SELECT count(*) FROM attempts) AS n`,
        [id],
      );
      return Number(row?.n ?? 0) === 1;
    },
    async recordOutcome(id, { ok, at }) {
      const row = await db.row<EndpointRow>(RECORD_OUTCOME, [id, ok, at]);
      return row ? toEndpoint(row) : null;
    },
    async disable(id, reason, at) {
      const row = await db.row(DISABLE, [id, reason, at]);
      return row !== undefined;
    },
  };
}

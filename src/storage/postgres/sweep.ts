import { postgresConsoleSessionStore } from './console-sessions.js';
import type { Database } from './database.js';
import { postgresOAuthStores } from './oauth.js';
import { postgresOutboxStore } from './outbox.js';
import { postgresWebhookDeliveryStore } from './webhook-deliveries.js';

/** How many expired rows `sweep` deleted, per kind. */
export interface SweepResult {
  readonly idempotencyKeys: number;
  /** Authorization codes, grants, refresh and access tokens (and the tokens of expired grants). */
  readonly oauthRecords: number;
  /** Finished webhook deliveries (with their attempts) older than the retention. */
  readonly webhookDeliveries: number;
  /** Rate-limit buckets that are full again (a full bucket needs no row). */
  readonly rateLimits: number;
  /** Console sessions past their end (signed-out ones are deleted at sign-out). */
  readonly consoleSessions: number;
  /** Relayed events older than the event retention, no longer readable in the feed. */
  readonly events: number;
}

/**
 * Deletes every record that has expired by `now`; indexes on the expiry columns keep this cheap, and
 * concurrent sweeps from several instances are harmless.
 */
export async function sweepExpired(
  db: Database,
  now: number,
  deliveryRetentionMs: number,
  eventRetentionMs: number,
): Promise<SweepResult> {
  const keys = await db.rows('DELETE FROM switchboard_idempotency WHERE until_ms <= $1 RETURNING 1', [now]);
  const oauthRecords = await postgresOAuthStores(db).deleteExpired(now);
  const webhookDeliveries = await postgresWebhookDeliveryStore(db).prune(now - deliveryRetentionMs, { now });
  const buckets = await db.rows('DELETE FROM switchboard_rate_limits WHERE tat <= $1 RETURNING 1', [now]);
  const consoleSessions = await postgresConsoleSessionStore(db).deleteExpired(now);
  const events = await postgresOutboxStore(db).prune(now - eventRetentionMs);
  return {
    events,
    idempotencyKeys: keys.length,
    oauthRecords,
    webhookDeliveries,
    rateLimits: buckets.length,
    consoleSessions,
  };
}

import type { Database } from './database.js';
import { postgresOAuthStores } from './oauth.js';

/** How many expired rows `sweep` deleted, per kind. */
export interface SweepResult {
  readonly idempotencyKeys: number;
  /** Authorization codes, grants, refresh and access tokens (and the tokens of expired grants). */
  readonly oauthRecords: number;
}

/**
 * Deletes every record that has expired by `now`; indexes on the expiry columns keep this cheap, and
 * concurrent sweeps from several instances are harmless.
 */
export async function sweepExpired(db: Database, now: number): Promise<SweepResult> {
  const keys = await db.rows('DELETE FROM switchboard_idempotency WHERE until_ms <= $1 RETURNING 1', [now]);
  const oauthRecords = await postgresOAuthStores(db).deleteExpired(now);
  return { idempotencyKeys: keys.length, oauthRecords };
}

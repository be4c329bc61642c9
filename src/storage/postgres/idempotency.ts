import type { IdempotencyClaim, IdempotencyStore } from '../../core/storage/index.js';
import { type Database, prepared } from './database.js';

interface ClaimRow {
  done: boolean;
  result: string | null;
  claimed: boolean;
}

/** When this process last swept expired keys; shared by the stores of one storage. */
export interface SweepSchedule {
  nextSweep: number;
}

const SWEEP_EVERY_MS = 60_000;

// Every write with an Idempotency-Key runs a claim, then a completion or a release.
const CLAIM = prepared(
  `INSERT INTO switchboard_idempotency AS i (key, done, result, until_ms, claim_token)
   VALUES ($1, false, NULL, $3, $4)
   ON CONFLICT (key) DO UPDATE SET
     done = CASE WHEN i.until_ms <= $2 THEN false ELSE i.done END,
     result = CASE WHEN i.until_ms <= $2 THEN NULL ELSE i.result END,
     claim_token = CASE WHEN i.until_ms <= $2 THEN excluded.claim_token ELSE i.claim_token END,
     until_ms = CASE WHEN i.until_ms <= $2 THEN excluded.until_ms ELSE i.until_ms END
   RETURNING done, result, claim_token = $4 AS claimed`,
);
const COMPLETE = prepared(
  `INSERT INTO switchboard_idempotency (key, done, result, until_ms) VALUES ($1, true, $2, $3)
   ON CONFLICT (key) DO UPDATE SET done = true, result = $2, until_ms = $3, claim_token = NULL`,
);
const RELEASE = prepared('DELETE FROM switchboard_idempotency WHERE key = $1 AND NOT done');

/**
 * Idempotency keys on PostgreSQL. A claim is one `INSERT … ON CONFLICT DO UPDATE`: the row lock makes
 * concurrent claimers of one key queue up, and the update takes the key over only when its lock or
 * retention has lapsed. The random token tells the caller whether the row it got back is its own
 * claim. Expired keys are deleted at most once a minute, as the memory adapter does.
 */
export function postgresIdempotencyStore(db: Database, schedule: SweepSchedule): IdempotencyStore {
  return {
    async claim(key, { now, lockMs }): Promise<IdempotencyClaim> {
      if (now >= schedule.nextSweep) {
        schedule.nextSweep = now + SWEEP_EVERY_MS;
        await db.rows('DELETE FROM switchboard_idempotency WHERE until_ms <= $1', [now]);
      }
      const token = crypto.randomUUID();
      const row = await db.row<ClaimRow>(CLAIM, [key, now, now + lockMs, token]);
      if (!row) throw new Error('INSERT … ON CONFLICT DO UPDATE returned no row');
      if (row.claimed) return { state: 'claimed' };
      return row.done ? { state: 'completed', result: row.result } : { state: 'in_progress' };
    },

    async complete(key, result, expiresAt) {
      await db.rows(COMPLETE, [key, result, expiresAt]);
    },

    async release(key) {
      await db.rows(RELEASE, [key]);
    },
  };
}

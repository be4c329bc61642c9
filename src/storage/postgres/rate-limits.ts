import { gcra } from '../../core/rate-limits/gcra.js';
import type { RateLimitStore } from '../../core/storage/index.js';
import type { Database } from './database.js';

/**
 * GCRA in one statement, so every instance shares one budget at one round trip per take: the row's
 * `tat` moves on only when the take fits (the update's condition is checked on the locked, latest
 * row), and the row as it was comes back to say by how much a refused take missed. A negative cost
 * moves it back, to now at the earliest (a full bucket), as `gcra` does.
 */
export function postgresRateLimitStore(db: Database): RateLimitStore {
  return {
    remote: true,
    async take(key, rule, cost, now) {
      const increment = (cost * rule.windowMs) / rule.limit;
      // More than a whole window's worth never fits: no need to ask.
      if (increment > rule.windowMs) return gcra(undefined, rule, cost, now).decision;
      const row = await db.row<{ taken: string | null; current: string | null }>(
        `WITH current AS (SELECT tat FROM switchboard_rate_limits WHERE key = $1),
         taken AS (
           INSERT INTO switchboard_rate_limits AS b (key, tat)
             VALUES ($1, GREATEST($2::double precision + $3, $2))
           ON CONFLICT (key) DO UPDATE SET tat = GREATEST(GREATEST(b.tat, $2) + $3, $2)
             WHERE GREATEST(GREATEST(b.tat, $2) + $3, $2) - $2 <= $4
           RETURNING tat)
         SELECT (SELECT tat FROM taken) AS taken, (SELECT tat FROM current) AS current`,
        [key, now, increment, rule.windowMs],
      );
      // Allowed: the bucket's time as now stored, less this take, through the same arithmetic as memory's
      // (an allowed decision depends on the stored time alone, so a give-back held at now answers right).
      if (row?.taken != null) return gcra(Number(row.taken) - increment, rule, cost, now).decision;
      // Refused: the wait, from the row as the statement read it. Another instance's take in between
      // can make that row look roomy; the database still refused, so wait a moment at least.
      const refused = gcra(row?.current == null ? undefined : Number(row.current), rule, cost, now).decision;
      return refused.allowed ? { ...refused, allowed: false, remaining: 0, retryAfterMs: 1 } : refused;
    },
  };
}

import { gcra } from '../../core/rate-limits/gcra.js';
import type { RateLimitStore } from '../../core/storage/index.js';
import type { Database } from './database.js';

/**
 * GCRA in one statement, so every instance shares one budget at one round trip per take: the row's
 * `tat` moves on only when the take fits (the update's condition is checked on the locked, latest
 * row), and the row as it was comes back to say by how much a refused take missed.
 */
export function postgresRateLimitStore(db: Database): RateLimitStore {
  return {
    async take(key, rule, cost, now) {
      const increment = (cost * rule.windowMs) / rule.limit;
      // More than a whole window's worth never fits: no need to ask.
      if (increment > rule.windowMs) return gcra(undefined, rule, cost, now).decision;
      const row = await db.row<{ taken: string | null; current: string | null }>(
        `WITH current AS (SELECT tat FROM switchboard_rate_limits WHERE key = $1),
         taken AS (
           INSERT INTO switchboard_rate_limits AS b (key, tat) VALUES ($1, $2::double precision + $3)
           ON CONFLICT (key) DO UPDATE SET tat = GREATEST(b.tat, $2) + $3
             WHERE GREATEST(b.tat, $2) + $3 - $2 <= $4
           RETURNING tat)
         SELECT (SELECT tat FROM taken) AS taken, (SELECT tat FROM current) AS current`,
        [key, now, increment, rule.windowMs],
      );
      const stored = row?.current === null || row?.current === undefined ? undefined : Number(row.current);
      // The same arithmetic as memory's, from the row as it was; PostgreSQL already decided.
      const { decision } = gcra(stored, rule, cost, now);
      const allowed = row?.taken !== null && row?.taken !== undefined;
      if (allowed === decision.allowed) return decision;
      // Another instance took in between: trust the database's answer.
      return allowed
        ? gcra(Number(row!.taken) - increment, rule, cost, now).decision
        : {
            allowed: false,
            remaining: 0,
            resetMs: Math.max(0, Math.ceil((stored ?? now) - now)),
            retryAfterMs: Math.max(1, Math.ceil((stored ?? now) + increment - rule.windowMs - now)),
          };
    },
  };
}

import pg, { type Pool } from 'pg';
import type { Logger } from '../../core/runtime.js';

/** Use a pool the host made and owns: closing Switchboard leaves it open. */
export interface PostgresPoolOption {
  readonly pool: Pool;
}

/** Or let Switchboard make the pool from a connection string; it then closes the pool too. */
export interface PostgresConnectionStringOption {
  /** `postgres://user:password@host:5432/database` */
  readonly connectionString: string;
  /** Most connections the pool opens (default 10). */
  readonly maxConnections?: number;
}

/** How to reach PostgreSQL: a `pool` the host owns, or a `connectionString` to make (and close) one from. */
export type PostgresConnectionOptions = PostgresPoolOption | PostgresConnectionStringOption;

export interface Connection {
  readonly pool: Pool;
  /** Ends the pool if we made it; leaves a host's pool alone. Safe to call more than once. */
  end(): Promise<void>;
}

/**
 * Server settings of the connections of a pool made here, e.g. `{ plan_cache_mode: 'force_generic_plan' }`
 * (a host's own pool is left as it is).
 */
export type SessionSettings = Readonly<Record<string, string>>;

export function connect(
  options: PostgresConnectionOptions,
  logger: Logger,
  defaultMax = 10,
  settings: SessionSettings = {},
): Connection {
  if ('pool' in options) return { pool: options.pool, end: async () => {} };
  const startup = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? defaultMax,
    ...(startup.length ? { options: startup.join(' ') } : {}),
    // Notices a silently dropped connection (the event bus listens on one for as long as it runs).
    keepAlive: true,
  });
  // An idle connection that the server drops emits 'error' on the pool; unhandled, it would end the
  // process. The pool replaces the connection on the next checkout, so logging is enough.
  pool.on('error', (error) =>
    logger.log('warn', 'idle PostgreSQL connection lost', { error: String(error) }),
  );
  let ended: Promise<void> | undefined;
  return {
    pool,
    end() {
      ended ??= pool.end();
      return ended;
    },
  };
}

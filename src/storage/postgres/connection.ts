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

export function connect(options: PostgresConnectionOptions, logger: Logger, defaultMax = 10): Connection {
  if ('pool' in options) return { pool: options.pool, end: async () => {} };
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? defaultMax,
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

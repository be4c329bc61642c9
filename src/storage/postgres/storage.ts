import type { Pool, PoolClient } from 'pg';
import { type Logger, silentLogger } from '../../core/runtime.js';
import type { Storage, Stores } from '../../core/storage/index.js';
import { DEFAULT_EVENT_RETENTION_MS } from '../../core/storage/outbox.js';
import { refusingUnstorableText, refusingUnstorableTextNow } from '../../core/storage/storable-text.js';
import { DEFAULT_DELIVERY_RETENTION_MS } from '../../core/storage/webhooks.js';
import { createSealer } from '../../internal/sealer.js';
import { postgresApiKeyStore } from './api-keys.js';
import { type Connection, connect, type PostgresConnectionOptions } from './connection.js';
import { postgresConsoleSessionStore } from './console-sessions.js';
import { type Database, database, statementCache, translate } from './database.js';
import { postgresIdempotencyStore, type SweepSchedule } from './idempotency.js';
import { type MigrationResult, runMigrations } from './migrate.js';
import { postgresOAuthStores } from './oauth.js';
import { postgresOutboxStore } from './outbox.js';
import { postgresRateLimitStore } from './rate-limits.js';
import { postgresResourceStore } from './resources.js';
import { type SweepResult, sweepExpired } from './sweep.js';
import { postgresWebhookStores } from './webhooks.js';

/** Options of {@link createPostgresStorage}: the connection, delivery retention and the background pool. */
export type PostgresStorageOptions = PostgresConnectionOptions & {
  readonly logger?: Logger;
  /** How long `sweep` keeps finished webhook deliveries (default 30 days). */
  readonly deliveryRetentionMs?: number;
  /** How long `sweep` keeps relayed events readable in the event feed after they occurred (default 30 days). */
  readonly eventRetentionMs?: number;
  /**
   * Connections of a second pool kept for background work (outbox relay, webhook dispatch), made from
   * the connection string (default 4; 0 shares the main pool). A host that passes its own `pool` can
   * pass another as `backgroundPool`.
   */
  readonly backgroundConnections?: number;
  readonly backgroundPool?: Pool;
  /**
   * Hot statements (a record by id, an API key, the queues' claims and outcomes) are prepared once per
   * connection and then run by name (default true). Set false behind a pooler that cannot keep named
   * statements: PgBouncer in transaction mode before 1.21, or without `max_prepared_statements`.
   */
  readonly preparedStatements?: boolean;
  /**
   * Encrypts the webhook signing keys' private keys and the values of endpoints' custom headers before
   * they reach the database (AES-256-GCM under a key derived from this text, at least 32 characters;
   * the same on every instance). Without it they are stored in clear: protect the database. Values
   * stored before it was set stay readable.
   */
  readonly encryptionKey?: string;
};

/** The PostgreSQL adapter: the storage contract plus schema migrations and housekeeping. */
export interface PostgresStorage extends Storage {
  /** The pool every store queries through (the host's, or the one made from the connection string). */
  readonly pool: Pool;
  /**
   * Brings the schema to the current version. Idempotent, and safe when many instances call it at
   * once: one migrates, the others wait for it and find nothing to do.
   */
  migrate(): Promise<MigrationResult>;
  /** Deletes what has expired by `now` (epoch ms): idempotency keys and other short-lived records. */
  sweep(options: { readonly now: number }): Promise<SweepResult>;
}

/**
 * Stores every record in PostgreSQL through the `pg` driver. Call `migrate()` once at start-up.
 *
 * @example
 * import { createPostgresStorage } from 'switchboard-kit/storage/postgres';
 * const storage = createPostgresStorage({ connectionString: 'postgres://app@localhost/switchboard' });
 * await storage.migrate();
 * const switchboard = createSwitchboard({ storage });
 */
export function createPostgresStorage(options: PostgresStorageOptions): PostgresStorage {
  const logger = options.logger ?? silentLogger;
  const connection = connect(options, logger);
  const schedule: SweepSchedule = { nextSweep: 0 };
  const backgroundConnection = backgroundOf(options, logger);
  const main = view(connection.pool, schedule, options);
  const background = backgroundConnection ? view(backgroundConnection.pool, schedule, options) : undefined;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= Promise.all([connection.end(), backgroundConnection?.end()]).then(() => {});
    return closed;
  };
  return {
    ...main,
    migrate: () => runMigrations(connection.pool),
    ...(background ? { background: { ...background, close } } : {}),
    close,
  };
}

/** The second pool, when there is one to make or the host gave one. */
function backgroundOf(options: PostgresStorageOptions, logger: Logger): Connection | undefined {
  if (options.backgroundPool) return connect({ pool: options.backgroundPool }, logger);
  if (!('connectionString' in options) || options.backgroundConnections === 0) return undefined;
  return connect(
    { connectionString: options.connectionString, maxConnections: options.backgroundConnections ?? 4 },
    logger,
    4,
    // Every statement of the queues has one shape whatever the values (index walks by key or due
    // time), but those taking arrays look dearer as generic plans and were planned again on every call
    // (the claim's take, finishSucceeded: ~0.3 ms of the database's CPU each). Requests keep the default.
    { plan_cache_mode: 'force_generic_plan' },
  );
}

/** The stores, transactions and housekeeping over one pool. */
function view(
  pool: Pool,
  schedule: SweepSchedule,
  options: PostgresStorageOptions,
): Omit<PostgresStorage, 'migrate' | 'close' | 'background'> {
  const prepare = options.preparedStatements ?? true;
  const cache = statementCache();
  const sealer = options.encryptionKey === undefined ? undefined : createSealer(options.encryptionKey);
  const stores = (db: Database): Stores => ({
    outbox: postgresOutboxStore(db),
    idempotency: postgresIdempotencyStore(db, schedule),
    apiKeys: postgresApiKeyStore(db),
    oauth: postgresOAuthStores(db),
    webhooks: postgresWebhookStores(db, sealer),
    resources: postgresResourceStore(db),
    rateLimits: postgresRateLimitStore(db),
    consoleSessions: postgresConsoleSessionStore(db),
  });
  async function inTransaction<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const client = await checkout(pool);
    let broken = false;
    // A connection lost mid-transaction emits 'error' on the client; the failed query reports it.
    const onError = (): void => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(database(client, { prepare, cache }));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw translate(error);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }
  const outer = database(pool, { begin: inTransaction, prepare, cache });
  return {
    ...refusingUnstorableTextNow(stores(outer)),
    pool,
    transaction: (work) => inTransaction((db) => work(refusingUnstorableText(stores(db)))),
    async ping() {
      await outer.rows('SELECT 1');
    },
    sweep: ({ now }) =>
      sweepExpired(
        outer,
        now,
        options.deliveryRetentionMs ?? DEFAULT_DELIVERY_RETENTION_MS,
        options.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS,
      ),
  };
}

async function checkout(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw translate(error);
  }
}

/**
 * The PostgreSQL storage adapter and the cross-instance event bus: what lets several Switchboard
 * instances behind a load balancer share one database. Needs the `pg` driver (a peer dependency).
 *
 * @example
 * import { createSwitchboard } from 'switchboard-kit';
 * import { createPostgresEventBus, createPostgresStorage } from 'switchboard-kit/storage/postgres';
 * const storage = createPostgresStorage({ connectionString: process.env.DATABASE_URL! });
 * await storage.migrate();
 * const bus = createPostgresEventBus({ pool: storage.pool });
 * const switchboard = createSwitchboard({ storage, bus });
 *
 * @packageDocumentation
 */
export type {
  PostgresConnectionOptions,
  PostgresConnectionStringOption,
  PostgresPoolOption,
} from './connection.js';
export {
  createPostgresEventBus,
  type PostgresEventBus,
  type PostgresEventBusOptions,
} from './event-bus.js';
export type { MigrationResult } from './migrate.js';
export {
  createPostgresStorage,
  type PostgresStorage,
  type PostgresStorageOptions,
} from './storage.js';
export type { SweepResult } from './sweep.js';

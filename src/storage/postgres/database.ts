import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
import { SwitchboardError } from '../../core/errors.js';

/** What a store needs to run SQL: the pool outside a transaction, the transaction's client inside one. */
export interface Queryable {
  query<R extends QueryResultRow>(text: string, values?: readonly unknown[]): Promise<{ rows: R[] }>;
  query<R extends QueryResultRow>(config: QueryConfig): Promise<{ rows: R[] }>;
}

/**
 * A statement of fixed text that each connection parses and plans once, then runs by name: a hot read
 * or write pays for neither again. Only for text that never varies with the call (a varying text would
 * leave a prepared statement per variant on every connection), and for statements whose plan does not
 * hinge on the values (PostgreSQL may switch a prepared statement to one generic plan after 5 runs).
 */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

/** Names `text` by its hash, so two stores preparing the same text share one statement per connection. */
export function prepared(text: string): Prepared {
  return { name: `switchboard_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`, text };
}

/**
 * Statements whose text is built per call but repeats (a list's filters and order), prepared as they
 * come up to `limit` distinct texts, then sent as text: a caller's choice of filters cannot grow the
 * statements every connection keeps without bound. One per storage, shared by its transactions.
 */
export interface StatementCache {
  readonly byText: Map<string, Prepared>;
  readonly limit: number;
}

export function statementCache(limit = 200): StatementCache {
  return { byText: new Map(), limit };
}

/** The SQL runner every store uses: errors come out as SwitchboardErrors where the caller can act on them. */
export interface Database {
  /** Runs one statement and returns its rows. */
  rows<R extends QueryResultRow>(statement: string | Prepared, values?: readonly unknown[]): Promise<R[]>;
  /** Runs one statement and returns its first row, if any. */
  row<R extends QueryResultRow>(
    statement: string | Prepared,
    values?: readonly unknown[],
  ): Promise<R | undefined>;
  /** `text` {@link prepared} through the storage's {@link StatementCache} while it has room, else as is. */
  reusable(text: string): string | Prepared;
  /** True inside `storage.transaction`: a failed statement there aborts the whole transaction. */
  readonly inTransaction: boolean;
  /**
   * Runs several statements as one transaction: joins the current one inside `storage.transaction`,
   * otherwise opens its own on a dedicated connection.
   */
  atomic<T>(work: (db: Database) => Promise<T>): Promise<T>;
}

/** Opens a transaction on a connection of its own; given by the storage to the outer stores. */
export type TransactionRunner = <T>(work: (db: Database) => Promise<T>) => Promise<T>;

export interface DatabaseOptions {
  /** How to run `atomic` work; absent inside a transaction, where the work joins it. */
  readonly begin?: TransactionRunner;
  /** False sends {@link Prepared} statements as plain text (for a pooler that cannot keep them). */
  readonly prepare?: boolean;
  /** Where `reusable` statements are kept; without one they are sent as text. */
  readonly cache?: StatementCache;
}

export function database(target: Pool | PoolClient | Queryable, options: DatabaseOptions = {}): Database {
  const db = target as Queryable;
  const prepare = options.prepare ?? true;
  const rows = async <R extends QueryResultRow>(
    statement: string | Prepared,
    values?: readonly unknown[],
  ): Promise<R[]> => {
    try {
      if (typeof statement === 'string') return (await db.query<R>(statement, values)).rows;
      const { name, text } = statement;
      const config = prepare
        ? { name, text, values: values as unknown[] }
        : { text, values: values as unknown[] };
      return (await db.query<R>(config)).rows;
    } catch (error) {
      throw translate(error);
    }
  };
  const cache = options.cache;
  const self: Database = {
    rows,
    reusable(text) {
      if (!cache) return text;
      const known = cache.byText.get(text);
      if (known) return known;
      if (cache.byText.size >= cache.limit) return text;
      const made = prepared(text);
      cache.byText.set(text, made);
      return made;
    },
    async row<R extends QueryResultRow>(
      statement: string | Prepared,
      values?: readonly unknown[],
    ): Promise<R | undefined> {
      return (await rows<R>(statement, values))[0];
    },
    inTransaction: options.begin === undefined,
    atomic: (work) => (options.begin ? options.begin(work) : work(self)),
  };
  return self;
}

/** The SQLSTATE of a driver error, if it has one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const UNAVAILABLE_STATES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
]);

/**
 * Turns "the database is not there" into a SwitchboardError `unavailable` (503 at every interface, and
 * `/readyz` says so); anything else is left as it is, a bug or an outage the host must see in full.
 */
export function translate(error: unknown): unknown {
  if (error instanceof SwitchboardError) return error;
  const state = sqlState(error);
  // A deadlock or serialization failure aborts the whole transaction: nothing was written, and the
  // same request sent again succeeds. (Work is not re-run here: it may keep state outside the database.)
  if (state === '40P01' || state === '40001')
    return new SwitchboardError(
      'unavailable',
      'The write collided with a concurrent one and was not made; send it again.',
      { cause: error, retryAfter: 1 },
    );
  const message = error instanceof Error ? error.message : '';
  if (
    (state !== undefined && (UNAVAILABLE_STATES.has(state) || state.startsWith('08'))) ||
    /Connection terminated|timeout exceeded when trying to connect/i.test(message)
  ) {
    return new SwitchboardError('unavailable', 'The database cannot be reached; try again shortly.', {
      cause: error,
    });
  }
  return error;
}

/**
 * The storage port's times are epoch milliseconds in `bigint` columns, which the driver returns as text
 * (JavaScript numbers hold every millisecond up to the year 275760 exactly).
 */
export function ms(value: string | number): number {
  return Number(value);
}

/** {@link ms} for a column that may be null. */
export function msOrNull(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

/** PostgreSQL `timestamptz` comes back as a Date; business records carry ISO-8601 text. */
export function iso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

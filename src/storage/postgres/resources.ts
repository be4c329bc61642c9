import { SwitchboardError } from '../../core/errors.js';
import type {
  ResourceLayout,
  ResourceMatch,
  ResourceRecord,
  ResourceStore,
} from '../../core/storage/index.js';
import { type Database, prepared } from './database.js';

interface ResourceRow {
  id: string;
  version: number;
  created_iso: string;
  updated_iso: string;
  data: Record<string, unknown>;
  total?: string;
}

/** Columns every record has; the declared fields live in `data` (jsonb). */
const COLUMNS = 'id, version, created_at, updated_at, data';
/** `timestamptz` as the port's ISO-8601 text (UTC, milliseconds), made by the server: no Date per row. */
const isoOf = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** What a read selects; the times under names of their own, so `ORDER BY created_at` stays the column. */
const SELECTED = `id, version, ${isoOf('created_at')} AS created_iso, ${isoOf('updated_at')} AS updated_iso, data`;
const OWN: Readonly<Record<string, string>> = { id: 'id', createdAt: 'created_at', updatedAt: 'updated_at' };

// The statements of every single-record call, prepared once per connection (lists vary with their filters).
const INSERT = prepared(
  `INSERT INTO switchboard_resources (resource, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
   ON CONFLICT DO NOTHING RETURNING id`,
);
const GET = prepared(`SELECT ${SELECTED} FROM switchboard_resources WHERE resource = $1 AND id = $2`);
const UPDATE = prepared(
  `UPDATE switchboard_resources SET version = $4, updated_at = $5, data = $6
   WHERE resource = $1 AND id = $2 AND version = $3 RETURNING id`,
);
const DELETE = prepared(
  'DELETE FROM switchboard_resources WHERE resource = $1 AND id = $2 AND version = $3 RETURNING id',
);

/**
 * The row as a record: its data, then its own columns. Copied by a rest pattern and then assigned,
 * not by `{ ...row.data, id, … }`: on Node 20 (V8 11.3) members after a spread take a slow path that
 * cost ~3 µs per record read (a page of 20, 60 µs), where this costs ~0.1 µs; later Nodes are fast either way.
 */
function toRecord(row: ResourceRow): ResourceRecord {
  const { ...record } = row.data;
  record.id = row.id;
  record.createdAt = row.created_iso;
  record.updatedAt = row.updated_iso;
  record.version = row.version;
  return record as ResourceRecord;
}

function dataOf(record: ResourceRecord): Record<string, unknown> {
  const { id: _id, createdAt: _c, updatedAt: _u, version: _v, ...data } = record;
  return data;
}

// Names go into the SQL text (a partial index matches only a literal, an expression index only the
// same expression), so they are held to these shapes.
const RESOURCE = /^[a-z][a-z0-9-]{0,62}$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function named(resource: string): string {
  if (!RESOURCE.test(resource)) throw new Error(`Resource name "${resource}" cannot be stored.`);
  return `'${resource}'`;
}

/** `data ->> 'field'`: the field as text, the expression the per-field indexes are made on. */
function text(field: string): string {
  return `(data ->> '${checked(field)}')`;
}

/** `data -> 'field'`: the field as jsonb, which sorts numbers as numbers. */
function json(field: string): string {
  return `(data -> '${checked(field)}')`;
}

function checked(field: string): string {
  if (!FIELD.test(field)) throw new Error(`Field name "${field}" cannot be stored.`);
  return field;
}

/**
 * Every resource in one table, `switchboard_resources (resource, id, …, data jsonb)`, with a partial
 * expression index per field a resource's lists filter on (made by `prepare`): a host's new resource
 * or new field needs no migration (docs/storage.md, "Resources", says why and what it costs).
 */
export function postgresResourceStore(db: Database): ResourceStore {
  return {
    async insert(resource, record) {
      const inserted = await db.row(INSERT, [
        resource,
        record.id,
        record.version,
        record.createdAt,
        record.updatedAt,
        dataOf(record),
      ]);
      if (!inserted)
        throw new SwitchboardError('conflict', `A ${resource} with id ${record.id} exists already.`);
    },
    async get(resource, id) {
      const row = await db.row<ResourceRow>(GET, [resource, id]);
      return row ? toRecord(row) : null;
    },
    async update(resource, record, expectedVersion) {
      const row = await db.row(UPDATE, [
        resource,
        record.id,
        expectedVersion,
        record.version,
        record.updatedAt,
        dataOf(record),
      ]);
      return row !== undefined;
    },
    async delete(resource, id, expectedVersion) {
      const row = await db.row(DELETE, [resource, id, expectedVersion]);
      return row !== undefined;
    },
    async lock(resource) {
      // Held to the end of the transaction; outside one it would end at once, so it is meant for inside.
      await db.rows("SELECT pg_advisory_xact_lock(hashtext('switchboard_resources:' || $1))", [resource]);
    },
    async list(resource, { where, sort, range }) {
      const values: unknown[] = [];
      const conditions = [`resource = ${named(resource)}`];
      for (const [field, match] of Object.entries(where)) conditions.push(condition(field, match, values));
      const order = OWN[sort.field] ?? json(sort.field);
      values.push(range.limit, range.offset);
      // A list's text repeats for each combination of filters and order a caller uses: prepared as such.
      const rows = await db.rows<ResourceRow>(
        db.reusable(
          `SELECT ${SELECTED}, count(*) OVER () AS total FROM switchboard_resources
           WHERE ${conditions.join(' AND ')}
           ORDER BY ${order} ${sort.descending ? 'DESC NULLS LAST' : 'ASC NULLS LAST'}, id
           LIMIT $${values.length - 1} OFFSET $${values.length}`,
        ),
        values,
      );
      const total =
        rows[0]?.total !== undefined ? Number(rows[0].total) : await countOf(db, conditions, values);
      return { items: rows.map(toRecord), total };
    },
    async prepare(layouts) {
      await db.atomic(async (tx) => {
        // Instances starting together take turns; the second finds every index made.
        await tx.rows("SELECT pg_advisory_xact_lock(hashtext('switchboard_resources:prepare'))");
        for (const layout of layouts) for (const sql of filterIndexesOf(layout)) await tx.rows(sql);
      });
      // The planner takes no statistics from a partial index's expression: without these it guesses
      // and, for a batch of ids, walks the creation-time index instead (docs/storage.md). PostgreSQL 14+.
      const failed: string[] = [];
      for (const layout of layouts) {
        if (!layout.filters.length) continue;
        const name = indexName(layout.name, `stats_${hashOf(layout.filters.join(','))}`);
        const on = layout.filters.map(text).join(', ');
        await db
          .rows(`CREATE STATISTICS IF NOT EXISTS ${name} ON ${on} FROM switchboard_resources`)
          .catch(() => failed.push(`statistics of ${layout.name} (PostgreSQL 14+)`));
      }
      await db.rows('ANALYZE switchboard_resources');
      // Last, each on its own: values stored before a field was declared unique may clash, and the
      // service's own check (under the resource's lock) still holds without the index.
      for (const layout of layouts)
        for (const field of layout.unique)
          await db
            .rows(uniqueIndexOf(layout.name, field))
            .catch(() => failed.push(`${layout.name}.${field}`));
      return failed.map((f) => `no unique index on ${f}: stored values repeat`);
    },
  };
}

/** One condition of a list, its values appended to `values`. */
function condition(field: string, match: ResourceMatch, values: unknown[]): string {
  const column = OWN[field];
  if (column) {
    values.push(match);
    return `${column} = ${Array.isArray(match) ? `ANY($${values.length}::text[])` : `$${values.length}`}`;
  }
  if (match === null) return `${text(field)} IS NULL`;
  if (Array.isArray(match)) {
    values.push(match);
    return `${text(field)} = ANY($${values.length}::text[])`;
  }
  if (typeof match === 'object') {
    // A part of a text, ignoring case; LIKE's wildcards in it are plain characters.
    values.push(`%${(match as { contains: string }).contains.replace(/[\\%_]/g, '\\$&')}%`);
    return `${text(field)} ILIKE $${values.length}`;
  }
  // As text, as `->>` gives it: 2 is '2', true is 'true'.
  values.push(String(match));
  return `${text(field)} = $${values.length}`;
}

/** An index per filtered field of a resource: partial, on the field as text, then creation order. */
function filterIndexesOf(layout: ResourceLayout): string[] {
  return layout.filters.map(
    (f) =>
      `CREATE INDEX IF NOT EXISTS ${indexName(layout.name, f)} ON switchboard_resources (${text(f)}, created_at, id)
       WHERE resource = ${named(layout.name)}`,
  );
}

function uniqueIndexOf(resource: string, field: string): string {
  return `CREATE UNIQUE INDEX IF NOT EXISTS ${indexName(resource, `${field}_key`)}
          ON switchboard_resources (${text(field)}) WHERE resource = ${named(resource)}`;
}

/** `switchboard_res_<resource>_<suffix>`, within PostgreSQL's 63 bytes (a hash keeps long ones apart). */
function indexName(resource: string, suffix: string): string {
  const name = `switchboard_res_${resource}_${suffix}`.replace(/-/g, '_').toLowerCase();
  return name.length <= 63 ? `"${name}"` : `"${name.slice(0, 54)}_${hashOf(name)}"`;
}

function hashOf(text: string): string {
  let hash = 0;
  for (const c of text) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return hash.toString(36);
}

/** The total when the page asked for is past the end (no row to carry the window count). */
async function countOf(db: Database, conditions: string[], values: unknown[]): Promise<number> {
  const row = await db.row<{ total: string }>(
    `SELECT count(*) AS total FROM switchboard_resources WHERE ${conditions.join(' AND ')}`,
    values.slice(0, -2),
  );
  return Number(row?.total ?? 0);
}

import { SwitchboardError } from '../../core/errors.js';
import type { ResourceRecord, ResourceStore } from '../../core/storage/index.js';
import { type Database, iso } from './database.js';

interface ResourceRow {
  id: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  data: Record<string, unknown>;
  total?: string;
}

/** Columns every record has; the declared fields live in `data` (jsonb). */
const COLUMNS = 'id, version, created_at, updated_at, data';
const OWN: Readonly<Record<string, string>> = { id: 'id', createdAt: 'created_at', updatedAt: 'updated_at' };

function toRecord(row: ResourceRow): ResourceRecord {
  return {
    ...row.data,
    id: row.id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    version: row.version,
  };
}

function dataOf(record: ResourceRecord): Record<string, unknown> {
  const { id: _id, createdAt: _c, updatedAt: _u, version: _v, ...data } = record;
  return data;
}

/**
 * Every declared resource in one table, `switchboard_resources (resource, id, …, data jsonb)`: a host's
 * new resource needs no migration of its own (docs/storage.md, "Declared resources").
 */
export function postgresResourceStore(db: Database): ResourceStore {
  return {
    async insert(resource, record) {
      const inserted = await db.row(
        `INSERT INTO switchboard_resources (resource, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING RETURNING id`,
        [resource, record.id, record.version, record.createdAt, record.updatedAt, dataOf(record)],
      );
      if (!inserted)
        throw new SwitchboardError('conflict', `A ${resource} with id ${record.id} exists already.`);
    },
    async get(resource, id) {
      const row = await db.row<ResourceRow>(
        `SELECT ${COLUMNS} FROM switchboard_resources WHERE resource = $1 AND id = $2`,
        [resource, id],
      );
      return row ? toRecord(row) : null;
    },
    async update(resource, record, expectedVersion) {
      const row = await db.row(
        `UPDATE switchboard_resources SET version = $4, updated_at = $5, data = $6
         WHERE resource = $1 AND id = $2 AND version = $3 RETURNING id`,
        [resource, record.id, expectedVersion, record.version, record.updatedAt, dataOf(record)],
      );
      return row !== undefined;
    },
    async delete(resource, id, expectedVersion) {
      const row = await db.row(
        'DELETE FROM switchboard_resources WHERE resource = $1 AND id = $2 AND version = $3 RETURNING id',
        [resource, id, expectedVersion],
      );
      return row !== undefined;
    },
    async lock(resource) {
      // Held to the end of the transaction; outside one it would end at once, so it is meant for inside.
      await db.rows("SELECT pg_advisory_xact_lock(hashtext('switchboard_resources:' || $1))", [resource]);
    },
    async list(resource, { where, sort, range }) {
      const values: unknown[] = [resource];
      const conditions = ['resource = $1'];
      // Declared fields by jsonb containment, which the GIN index on `data` serves.
      const contains: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(where)) {
        if (OWN[field]) {
          values.push(value);
          conditions.push(
            `${OWN[field]} = ${Array.isArray(value) ? `ANY($${values.length}::text[])` : `$${values.length}`}`,
          );
        } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          // A part of a text, ignoring case; LIKE's wildcards in it are plain characters.
          const part = (value as { contains: string }).contains.replace(/[\\%_]/g, '\\$&');
          values.push(field, `%${part}%`);
          conditions.push(`data ->> $${values.length - 1} ILIKE $${values.length}`);
        } else if (value === null) {
          values.push(field);
          conditions.push(`coalesce(data -> $${values.length}, 'null') = 'null'`);
        } else if (Array.isArray(value)) {
          values.push(field, value);
          conditions.push(`data ->> $${values.length - 1} = ANY($${values.length}::text[])`);
        } else contains[field] = value;
      }
      if (Object.keys(contains).length) {
        values.push(JSON.stringify(contains));
        conditions.push(`data @> $${values.length}::jsonb`);
      }
      let order = OWN[sort.field];
      if (!order) {
        values.push(sort.field);
        order = `data -> $${values.length}`;
      }
      values.push(range.limit, range.offset);
      const rows = await db.rows<ResourceRow>(
        `SELECT ${COLUMNS}, count(*) OVER () AS total FROM switchboard_resources
         WHERE ${conditions.join(' AND ')}
         ORDER BY ${order} ${sort.descending ? 'DESC NULLS LAST' : 'ASC NULLS LAST'}, id
         LIMIT $${values.length - 1} OFFSET $${values.length}`,
        values,
      );
      const total =
        rows[0]?.total !== undefined ? Number(rows[0].total) : await countOf(db, conditions, values);
      return { items: rows.map(toRecord), total };
    },
  };
}

/** The total when the page asked for is past the end (no row to carry the window count). */
async function countOf(db: Database, conditions: string[], values: unknown[]): Promise<number> {
  const row = await db.row<{ total: string }>(
    `SELECT count(*) AS total FROM switchboard_resources WHERE ${conditions.join(' AND ')}`,
    values.slice(0, -2),
  );
  return Number(row?.total ?? 0);
}

import { SwitchboardError } from '../../core/errors.js';
import type { Order, OrderStatus } from '../../core/records.js';
import type { OrderStore } from '../../core/storage/index.js';
import { type Database, iso } from './database.js';

interface OrderRow {
  id: string;
  client_id: string;
  status: OrderStatus;
  total: string;
  currency: string;
  created_at: Date;
  updated_at: Date;
  version: number;
}

const COLUMNS = 'id, client_id, status, total, currency, created_at, updated_at, version';

// `total` is `numeric` without a fixed scale, which keeps the digits it was given ("10.00" stays
// "10.00"), and the driver returns numeric as text, so money never passes through a float.
/** An order's values in {@link COLUMNS} order: `$1`…`$8` of an insert or update. */
function valuesOf(order: Order): unknown[] {
  return [
    order.id,
    order.clientId,
    order.status,
    order.total,
    order.currency,
    order.createdAt,
    order.updatedAt,
    order.version,
  ];
}

function toOrder(row: OrderRow): Order {
  return {
    id: row.id,
    clientId: row.client_id,
    status: row.status,
    total: row.total,
    currency: row.currency,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    version: row.version,
  };
}

export function postgresOrderStore(db: Database): OrderStore {
  return {
    async get(id) {
      const row = await db.row<OrderRow>(`SELECT ${COLUMNS} FROM switchboard_orders WHERE id = $1`, [id]);
      return row ? toOrder(row) : null;
    },

    async listByClient(clientId, filter, range) {
      const where = 'client_id = $1 AND ($2::text IS NULL OR status = $2)';
      const rows = await db.rows<OrderRow & { total_count: string }>(
        `SELECT t.total_count, o.* FROM (SELECT count(*) AS total_count FROM switchboard_orders WHERE ${where}) t
         LEFT JOIN LATERAL (
           SELECT ${COLUMNS} FROM switchboard_orders WHERE ${where}
           ORDER BY created_at, id LIMIT $3 OFFSET $4
         ) o ON true`,
        [clientId, filter.status ?? null, range.limit, range.offset],
      );
      return {
        items: rows.filter((r) => r.id !== null).map(toOrder),
        total: Number(rows[0]?.total_count ?? 0),
      };
    },

    async listByClients(clientIds, filter) {
      if (clientIds.length === 0) return [];
      const rows = await db.rows<OrderRow>(
        `SELECT ${COLUMNS} FROM switchboard_orders
         WHERE client_id = ANY($1::text[]) AND ($2::text IS NULL OR status = $2)
         ORDER BY created_at, id`,
        [[...new Set(clientIds)], filter.status ?? null],
      );
      return rows.map(toOrder);
    },

    async insert(order) {
      const inserted = await db.row(
        `INSERT INTO switchboard_orders (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING RETURNING id`,
        valuesOf(order),
      );
      if (!inserted) throw new SwitchboardError('conflict', `Order ${order.id} already exists.`);
    },

    async update(order, expectedVersion) {
      const updated = await db.row(
        `UPDATE switchboard_orders
         SET status = $3, total = $4, currency = $5, created_at = $6, updated_at = $7, version = $8
         WHERE id = $1 AND client_id = $2 AND version = $9
         RETURNING id`,
        [...valuesOf(order), expectedVersion],
      );
      return updated !== undefined;
    },

    async deleteByClient(clientId) {
      const rows = await db.rows('DELETE FROM switchboard_orders WHERE client_id = $1 RETURNING id', [
        clientId,
      ]);
      return rows.length;
    },
  };
}

import { SwitchboardError } from '../../core/errors.js';
import type { Message } from '../../core/records.js';
import type { MessageStore } from '../../core/storage/index.js';
import { type Database, iso } from './database.js';

interface MessageRow {
  id: string;
  chatbot_id: string;
  visitor_id: string;
  content: string;
  sent_at: Date;
}

const COLUMNS = 'id, chatbot_id, visitor_id, content, sent_at';

function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    chatbotId: row.chatbot_id,
    visitorId: row.visitor_id,
    content: row.content,
    timestamp: iso(row.sent_at),
  };
}

export function postgresMessageStore(db: Database): MessageStore {
  return {
    async get(id) {
      const row = await db.row<MessageRow>(`SELECT ${COLUMNS} FROM switchboard_messages WHERE id = $1`, [id]);
      return row ? toMessage(row) : null;
    },

    async list(filter, range) {
      const where = 'chatbot_id = $1 AND ($2::text IS NULL OR visitor_id = $2)';
      const rows = await db.rows<MessageRow & { total: string }>(
        `SELECT t.total, m.* FROM (SELECT count(*) AS total FROM switchboard_messages WHERE ${where}) t
         LEFT JOIN LATERAL (
           SELECT ${COLUMNS} FROM switchboard_messages WHERE ${where}
           ORDER BY sent_at, id LIMIT $3 OFFSET $4
         ) m ON true`,
        [filter.chatbotId, filter.visitorId ?? null, range.limit, range.offset],
      );
      return {
        items: rows.filter((r) => r.id !== null).map(toMessage),
        total: Number(rows[0]?.total ?? 0),
      };
    },

    async insert(message) {
      const inserted = await db.row(
        `INSERT INTO switchboard_messages (${COLUMNS}) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING RETURNING id`,
        [message.id, message.chatbotId, message.visitorId, message.content, message.timestamp],
      );
      if (!inserted) throw new SwitchboardError('conflict', `Message ${message.id} already exists.`);
    },
  };
}

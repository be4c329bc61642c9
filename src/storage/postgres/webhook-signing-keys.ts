import { SwitchboardError } from '../../core/errors.js';
import type { WebhookSigningKeyRecord, WebhookSigningKeyStore } from '../../core/storage/index.js';
import { type Database, ms, msOrNull } from './database.js';

interface KeyRow {
  id: string;
  algorithm: 'Ed25519';
  public_key: string;
  private_key: string;
  created_at: string;
  expires_at: string | null;
}

const toKey = (r: KeyRow): WebhookSigningKeyRecord => ({
  id: r.id,
  algorithm: r.algorithm,
  publicKey: r.public_key,
  privateKey: r.private_key,
  createdAt: ms(r.created_at),
  expiresAt: msOrNull(r.expires_at),
});

/** Rotations are rare: one at a time, behind a table lock that readers (`list`) do not wait for. */
export function postgresSigningKeyStore(db: Database): WebhookSigningKeyStore {
  return {
    async list(now) {
      const rows = await db.rows<KeyRow>(
        `SELECT * FROM switchboard_webhook_signing_keys WHERE expires_at IS NULL OR expires_at > $1
         ORDER BY expires_at IS NULL DESC, created_at DESC, id DESC`,
        [now],
      );
      return rows.map(toKey);
    },
    async activate(key, { expectedActiveId, retireAt, now }) {
      if (key.expiresAt !== null) throw new TypeError('A key to activate has no expiry (expiresAt null).');
      return db.atomic(async (tx) => {
        await tx.rows('LOCK TABLE switchboard_webhook_signing_keys IN SHARE ROW EXCLUSIVE MODE');
        const active = await tx.row<{ id: string }>(
          'SELECT id FROM switchboard_webhook_signing_keys WHERE expires_at IS NULL',
        );
        if ((active?.id ?? null) !== expectedActiveId) return false;
        await tx.rows(
          `WITH gone AS (DELETE FROM switchboard_webhook_signing_keys WHERE expires_at <= $1 RETURNING 1)
           UPDATE switchboard_webhook_signing_keys SET expires_at = $2
           WHERE (expires_at IS NULL OR expires_at > $2) AND expires_at IS DISTINCT FROM $2`,
          [now, retireAt],
        );
        const inserted = await tx.row(
          `INSERT INTO switchboard_webhook_signing_keys
             (id, algorithm, public_key, private_key, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, NULL) ON CONFLICT (id) DO NOTHING RETURNING id`,
          [key.id, key.algorithm, key.publicKey, key.privateKey, key.createdAt],
        );
        if (!inserted) throw new SwitchboardError('conflict', `Signing key ${key.id} already exists.`);
        return true;
      });
    },
  };
}

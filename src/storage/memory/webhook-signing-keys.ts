import { SwitchboardError } from '../../core/errors.js';
import type { WebhookSigningKeyRecord, WebhookSigningKeyStore } from '../../core/storage/index.js';
import { type Journal, put, remove } from './journal.js';

/** The active key first, then the others newest first (by creation, then id). */
function byActiveThenNewest(a: WebhookSigningKeyRecord, b: WebhookSigningKeyRecord): number {
  if ((a.expiresAt === null) !== (b.expiresAt === null)) return a.expiresAt === null ? -1 : 1;
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The reference implementation: the compare-and-set and the retirement happen with no `await` between. */
export function memorySigningKeyStore(
  keys: Map<string, WebhookSigningKeyRecord>,
  journal: Journal,
): WebhookSigningKeyStore {
  return {
    async list(now) {
      return [...keys.values()]
        .filter((k) => k.expiresAt === null || k.expiresAt > now)
        .sort(byActiveThenNewest);
    },
    async activate(key, { expectedActiveId, retireAt, now }) {
      if (key.expiresAt !== null) throw new TypeError('A key to activate has no expiry (expiresAt null).');
      const active = [...keys.values()].find((k) => k.expiresAt === null);
      if ((active?.id ?? null) !== expectedActiveId) return false;
      if (keys.has(key.id)) throw new SwitchboardError('conflict', `Signing key ${key.id} already exists.`);
      for (const other of [...keys.values()]) {
        if (other.expiresAt !== null && other.expiresAt <= now) remove(journal, keys, other.id);
        else if (other.expiresAt === null || other.expiresAt > retireAt) {
          put(journal, keys, other.id, Object.freeze({ ...other, expiresAt: retireAt }));
        }
      }
      put(journal, keys, key.id, Object.freeze({ ...key }));
      return true;
    },
  };
}

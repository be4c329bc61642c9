import { openStored, SEALED_PREFIX, type Sealer } from '../../internal/sealer.js';
import type { WebhookSigningKeyRecord, WebhookSigningKeyStore } from './webhook-signing-keys.js';

/**
 * A signing key store whose private keys are sealed before the adapter's own store sees them and
 * opened as they are read back, so with an encryption key they never reach the database (or the
 * memory adapter's maps) in clear. Both adapters wrap their store in it: one code path, one behaviour.
 * Without a sealer, values are stored as given, and a sealed one read back is an error that says what
 * to configure; a value stored in clear before a key was configured is read as it is.
 */
export function sealingSigningKeys(
  store: WebhookSigningKeyStore,
  sealer: Sealer | undefined,
): WebhookSigningKeyStore {
  const open = async (key: WebhookSigningKeyRecord): Promise<WebhookSigningKeyRecord> => ({
    ...key,
    privateKey: await openStored(sealer, key.privateKey, key.id, `The webhook signing key ${key.id}`),
  });
  return {
    async list(now) {
      const keys = await store.list(now);
      return sealer || keys.some((k) => k.privateKey.startsWith(SEALED_PREFIX))
        ? Promise.all(keys.map(open))
        : keys;
    },
    async activate(key, options) {
      const stored = sealer ? { ...key, privateKey: await sealer.seal(key.privateKey, key.id) } : key;
      return store.activate(stored, options);
    },
  };
}

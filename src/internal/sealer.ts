/**
 * Encryption at rest for the few stored values that must be read back in clear (a private key that
 * signs): AES-256-GCM under a key derived (HKDF-SHA256) from the host's encryption key text, with the
 * record's id as additional data so a sealed value cannot be moved to another row. Web Crypto only.
 */
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';

/** Sealed values start with this, so a reader tells them from values stored in clear. */
export const SEALED_PREFIX = 'sealed.v1.';

/** Seals and opens text bound to a context (the record's id). */
export interface Sealer {
  seal(text: string, context: string): Promise<string>;
  /** Throws when the value was sealed with another key or for another context, or was altered. */
  open(sealed: string, context: string): Promise<string>;
}

/**
 * A stored value in clear: opened when sealed, as it is when stored before an encryption key was
 * configured. `what` names it for the errors ("The webhook signing key whk_1"), which say what to
 * configure when there is no sealer, and that another key sealed it when opening fails.
 */
export async function openStored(
  sealer: Sealer | undefined,
  value: string,
  context: string,
  what: string,
): Promise<string> {
  if (!value.startsWith(SEALED_PREFIX)) return value;
  if (!sealer) throw new Error(`${what} is stored encrypted; give the storage adapter its encryptionKey.`);
  try {
    return await sealer.open(value, context);
  } catch {
    throw new Error(
      `${what} cannot be opened with this encryptionKey (another key sealed it, or it was altered).`,
    );
  }
}

/** The shortest encryption key text accepted: 32 characters, e.g. 32 random bytes in base64. */
export const MIN_ENCRYPTION_KEY_LENGTH = 32;

const encoder = new TextEncoder();

/**
 * A {@link Sealer} for an encryption key; the AES key is derived at first use, never while constructing
 * (a Worker refuses crypto work in its module scope). Throws a TypeError for a key too short to trust.
 */
export function createSealer(encryptionKey: string): Sealer {
  if (typeof encryptionKey !== 'string' || encryptionKey.length < MIN_ENCRYPTION_KEY_LENGTH) {
    throw new TypeError(
      `The storage encryptionKey must be at least ${MIN_ENCRYPTION_KEY_LENGTH} characters (e.g. 32 random bytes in base64).`,
    );
  }
  let key: Promise<CryptoKey> | undefined;
  const keyOf = (): Promise<CryptoKey> =>
    (key ??= crypto.subtle
      .importKey('raw', encoder.encode(encryptionKey), 'HKDF', false, ['deriveKey'])
      .then((base) =>
        crypto.subtle.deriveKey(
          {
            name: 'HKDF',
            hash: 'SHA-256',
            salt: new Uint8Array(0),
            info: encoder.encode('switchboard storage seal v1'),
          },
          base,
          { name: 'AES-GCM', length: 256 },
          false,
          ['encrypt', 'decrypt'],
        ),
      ));
  return {
    async seal(text, context) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const sealed = new Uint8Array(
        await crypto.subtle.encrypt(
          { name: 'AES-GCM', iv, additionalData: encoder.encode(context) },
          await keyOf(),
          encoder.encode(text),
        ),
      );
      const out = new Uint8Array(iv.length + sealed.length);
      out.set(iv);
      out.set(sealed, iv.length);
      return SEALED_PREFIX + encodeBase64urlNoPadding(out);
    },
    async open(sealed, context) {
      if (!sealed.startsWith(SEALED_PREFIX)) throw new TypeError('The value is not sealed.');
      const bytes = decodeBase64urlIgnorePadding(sealed.slice(SEALED_PREFIX.length));
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: bytes.slice(0, 12), additionalData: encoder.encode(context) },
        await keyOf(),
        bytes.slice(12),
      );
      return new TextDecoder().decode(plain);
    },
  };
}

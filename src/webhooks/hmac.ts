import { decodeBase64, encodeBase64, encodeHexLowerCase } from '@oslojs/encoding';
import { kept } from '../internal/kept.js';
import { nativeCrypto } from '../internal/native-crypto.js';
import { signedMessage } from './signed-message.js';

/** How the shared secret becomes HMAC key bytes, per scheme. */
export type KeyFormat = 'utf8' | 'whsec';

/** How a signature is written in a header: lower-case hex (`sha256=`) or standard base64 (`v1,`). */
export type SignatureEncoding = 'hex' | 'base64';

/**
 * An HMAC-SHA256 key ready to sign `prefix` then `body` (text is UTF-8): `node:crypto`'s synchronous
 * HMAC where the runtime has it (Node, Deno, Bun; several times faster than an awaited `crypto.subtle`
 * call per message, and no promise to wait for), Web Crypto elsewhere. Same bytes either way.
 */
export interface HmacKey {
  sign(prefix: string, body: string | Uint8Array, encoding: SignatureEncoding): string | Promise<string>;
}

/** A key, or null for a secret that cannot be one; a promise only while Web Crypto imports it. */
export type FoundKey = HmacKey | null | Promise<HmacKey | null>;

const encoder = new TextEncoder();
// One cache per format, keyed by the secret itself: no key string to build and hash per message.
const caches: Readonly<Record<KeyFormat, Map<string, FoundKey>>> = { utf8: new Map(), whsec: new Map() };
const MAX_CACHED_KEYS = 256;

/**
 * The HMAC-SHA256 key for a secret, imported once and cached: importing costs more than hashing a
 * small body, and a sender or receiver uses the same few secrets over and over. Synchronous where
 * node:crypto is (callers await only a promise). Null for a secret that cannot be a key (an empty
 * string, bad base64 after `whsec_`), so callers never throw on it.
 */
export function hmacKey(secret: string, format: KeyFormat): FoundKey {
  const cache = caches[format];
  return kept(cache, secret, MAX_CACHED_KEYS, () => {
    const key = importKey(secret, format);
    if (key instanceof Promise) {
      // Once Web Crypto has imported it, later messages get the key without awaiting.
      key.then(
        (found) => cache.get(secret) === key && cache.set(secret, found),
        () => cache.get(secret) === key && cache.delete(secret),
      );
    }
    return key;
  });
}

function importKey(secret: string, format: KeyFormat): FoundKey {
  const bytes = keyBytes(secret, format);
  if (!bytes || bytes.byteLength === 0) return null;
  const native = nativeCrypto;
  if (native) {
    // A KeyObject made once: each HMAC then takes the key as it is, with no copy or check of its
    // bytes (a sign + verify pair 0.3 µs faster, of about 7).
    const material = native.createSecretKey?.(bytes) ?? bytes;
    return {
      sign(prefix, body, encoding) {
        const hmac = native.createHmac('sha256', material);
        // A text body joins its prefix in one update: V8 links the two strings without copying, and
        // one call into node:crypto costs less than two.
        if (typeof body === 'string') return hmac.update(prefix + body).digest(encoding);
        if (prefix) hmac.update(prefix);
        return hmac.update(body).digest(encoding);
      },
    };
  }
  return webCryptoKey(bytes);
}

async function webCryptoKey(bytes: Uint8Array<ArrayBuffer>): Promise<HmacKey> {
  const key = await crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return {
    async sign(prefix, body, encoding) {
      const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, signedMessage(prefix, body)));
      return encoding === 'hex' ? encodeHexLowerCase(mac) : encodeBase64(mac);
    },
  };
}

function keyBytes(secret: string, format: KeyFormat): Uint8Array<ArrayBuffer> | null {
  if (format === 'utf8') return encoder.encode(secret);
  try {
    return new Uint8Array(decodeBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret));
  } catch {
    return null;
  }
}

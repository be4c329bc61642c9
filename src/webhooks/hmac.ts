import { decodeBase64 } from '@oslojs/encoding';
import { nativeCrypto } from '../internal/native-crypto.js';

/** How the shared secret becomes HMAC key bytes, per scheme. */
export type KeyFormat = 'utf8' | 'whsec';

/**
 * An HMAC-SHA256 key ready to sign and verify: `node:crypto`'s synchronous HMAC where the runtime has it
 * (Node, Deno, Bun; several times faster than an awaited `crypto.subtle` call per message), Web Crypto
 * elsewhere. Same bytes either way; both compare in constant time.
 */
export interface HmacKey {
  sign(data: Uint8Array<ArrayBuffer>): Uint8Array | Promise<Uint8Array>;
  /** False for a signature of the wrong length too: a forged header can neither crash nor time it. */
  verify(signature: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>): boolean | Promise<boolean>;
}

const encoder = new TextEncoder();
const keys = new Map<string, Promise<HmacKey | null>>();
const MAX_CACHED_KEYS = 256;

/**
 * Imports (and caches) the HMAC-SHA256 key for a secret. Importing costs more than hashing a small
 * body, and a sender or receiver uses the same few secrets over and over. Returns null for a secret
 * that cannot be a key (an empty string, bad base64 after `whsec_`), so callers never throw on it.
 */
export function hmacKey(secret: string, format: KeyFormat): Promise<HmacKey | null> {
  const cacheKey = `${format}:${secret}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = importKey(secret, format);
    if (keys.size >= MAX_CACHED_KEYS) keys.delete(keys.keys().next().value as string);
    keys.set(cacheKey, key);
  }
  return key;
}

async function importKey(secret: string, format: KeyFormat): Promise<HmacKey | null> {
  const bytes = keyBytes(secret, format);
  if (!bytes || bytes.byteLength === 0) return null;
  const native = nativeCrypto;
  if (native) {
    const sign = (data: Uint8Array): Uint8Array => native.createHmac('sha256', bytes).update(data).digest();
    return {
      sign,
      verify: (signature, data) =>
        signature.byteLength === 32 && native.timingSafeEqual(sign(data), signature),
    };
  }
  const key = await crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
  return {
    sign: async (data) => new Uint8Array(await crypto.subtle.sign('HMAC', key, data)),
    verify: (signature, data) => crypto.subtle.verify('HMAC', key, signature, data),
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

/** The bytes `prefix` (ASCII/UTF-8 text) followed by `body`, without copying `body` twice. */
export function signedBytes(prefix: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(prefix);
  const out = new Uint8Array(head.byteLength + body.byteLength);
  out.set(head, 0);
  out.set(body, head.byteLength);
  return out;
}

export function toBytes(body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  return typeof body === 'string' ? encoder.encode(body) : new Uint8Array(body);
}

import { decodeBase64, encodeBase64, encodeHexLowerCase } from '@oslojs/encoding';
import { nativeCrypto } from '../internal/native-crypto.js';

/** How the shared secret becomes HMAC key bytes, per scheme. */
export type KeyFormat = 'utf8' | 'whsec';

/** How a signature is written in a header: lower-case hex (`sha256=`) or standard base64 (`v1,`). */
export type SignatureEncoding = 'hex' | 'base64';

/**
 * An HMAC-SHA256 key ready to sign: `node:crypto`'s synchronous HMAC where the runtime has it (Node,
 * Deno, Bun; several times faster than an awaited `crypto.subtle` call per message), Web Crypto
 * elsewhere. Same bytes either way. The signed message is given in parts (text is UTF-8), so a prefix
 * and a body are never copied into one buffer on the fast path.
 */
export interface HmacKey {
  sign(parts: readonly (string | Uint8Array)[], encoding: SignatureEncoding): string | Promise<string>;
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
    return {
      sign(parts, encoding) {
        const hmac = native.createHmac('sha256', bytes);
        for (const part of parts) hmac.update(part);
        return hmac.digest(encoding);
      },
    };
  }
  const key = await crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return {
    async sign(parts, encoding) {
      const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, concat(parts)));
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

function concat(parts: readonly (string | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  const bytes = parts.map((part) => (typeof part === 'string' ? encoder.encode(part) : part));
  const out = new Uint8Array(bytes.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of bytes) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

import { decodeBase64 } from '@oslojs/encoding';

/** How the shared secret becomes HMAC key bytes, per scheme. */
export type KeyFormat = 'utf8' | 'whsec';

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey | null>>();
const MAX_CACHED_KEYS = 256;

/**
 * Imports (and caches) the HMAC-SHA256 key for a secret. Importing costs more than hashing a small
 * body, and a sender or receiver uses the same few secrets over and over. Returns null for a secret
 * that cannot be a key (an empty string, bad base64 after `whsec_`), so callers never throw on it.
 */
export function hmacKey(secret: string, format: KeyFormat): Promise<CryptoKey | null> {
  const cacheKey = `${format}:${secret}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = importKey(secret, format);
    if (keys.size >= MAX_CACHED_KEYS) keys.delete(keys.keys().next().value as string);
    keys.set(cacheKey, key);
  }
  return key;
}

async function importKey(secret: string, format: KeyFormat): Promise<CryptoKey | null> {
  const bytes = keyBytes(secret, format);
  if (!bytes || bytes.byteLength === 0) return null;
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
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

export async function hmac(key: CryptoKey, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
}

/**
 * Web Crypto's verify compares in constant time and simply answers false for a signature of the wrong
 * length, so a forged header can neither crash the verifier nor time its way to the answer.
 */
export function hmacMatches(
  key: CryptoKey,
  signature: Uint8Array<ArrayBuffer>,
  data: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  return crypto.subtle.verify('HMAC', key, signature, data);
}

export function toBytes(body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  return typeof body === 'string' ? encoder.encode(body) : new Uint8Array(body);
}

/**
 * Conditional requests (RFC 9110 §13): ETags on GET answers, `If-None-Match` → 304, and `If-Match` →
 * the version a write is conditional on (412 when stale).
 */
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import type { WriteOptions } from '../core/domain/index.js';
import { SwitchboardError } from '../core/errors.js';
import { nativeSha256 } from '../internal/native-crypto.js';

/** The `ETag` (or fingerprint) of raw bytes: a SHA-256 prefix. */
export async function bodyTag(body: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body as BufferSource));
  return `"${encodeBase64urlNoPadding(digest.subarray(0, 16))}"`;
}

/**
 * The `ETag` of a JSON text, synchronously (no trip to the crypto thread pool per GET): a 128-bit
 * SHA-256 prefix where the runtime has native crypto, else two 53-bit cyrb53 hashes
 * (106 bits) in JavaScript. An entity tag only has to change when the text does, not resist forgery.
 */
export function textTag(text: string): string {
  const native = nativeSha256(text, 'base64url');
  if (native !== undefined) return `"${native.slice(0, 22)}"`;
  return `"${cyrb53(text, 0x9e3779b9).toString(36)}${cyrb53(text, 0x85ebca6b).toString(36)}"`;
}

function cyrb53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Whether `If-None-Match` matches `etag` (weak comparison, RFC 9110 §13.1.2). */
export function noneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return tagsOf(header).some((tag) => tag.replace(/^W\//, '') === opaque);
}

/**
 * Turns `If-Match` into the domain's `ifVersion`. `*` only asks that the record exists (the domain
 * answers 404 otherwise); one strong tag names the version; with several, `current` tells which version
 * the record has now. A weak or unknown tag can never match strongly, so it fails with 412.
 *
 * @example
 * await domain.resources.client!.replace(id, body, await ifMatch(request, () => currentVersion(id)));
 */
export async function ifMatch(
  request: Request,
  current: () => Promise<number | null>,
): Promise<WriteOptions> {
  const header = request.headers.get('if-match');
  if (header === null || header.trim() === '*') return {};
  const versions = tagsOf(header)
    .map((tag) => /^"([0-9]{1,15})"$/.exec(tag)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number);
  if (versions.length === 0) throw stale();
  if (versions.length === 1) return { ifVersion: versions[0] };
  const now = await current();
  if (now !== null && versions.includes(now)) return { ifVersion: now };
  if (now === null) return {};
  throw stale();
}

function tagsOf(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);
}

function stale(): SwitchboardError {
  return new SwitchboardError('precondition_failed', 'If-Match names none of the current versions.');
}

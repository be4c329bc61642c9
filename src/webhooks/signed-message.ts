const encoder = new TextEncoder();

/**
 * The bytes a signature covers, whatever signs them (HMAC `v1`, Ed25519 `v1a`): the scheme's prefix
 * (`"<id>.<timestamp>."`, `"<timestamp>."` or none) then the body exactly as sent.
 */
export function signedMessage(prefix: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return encoder.encode(prefix + body);
  const head = encoder.encode(prefix);
  const out = new Uint8Array(head.byteLength + body.byteLength);
  out.set(head);
  out.set(body, head.byteLength);
  return out;
}

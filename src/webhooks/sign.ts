import { hmacKey, type SignatureEncoding } from './hmac.js';

/**
 * Which headers and bytes a signature uses:
 * - `switchboard` (default): `X-Signature: sha256=<hex>`, `X-Timestamp`, `X-Event-Id`; the key is the
 *   secret's UTF-8 bytes.
 * - `standard`: [Standard Webhooks](https://www.standardwebhooks.com/) — `webhook-id`,
 *   `webhook-timestamp`, `webhook-signature: v1,<base64>`; the key is the base64 after `whsec_`.
 */
export type SignatureScheme = 'switchboard' | 'standard';

/**
 * What the signature covers in the `switchboard` scheme: `timestamped` signs `"<timestamp>.<body>"` so a
 * captured request cannot be replayed with a fresh timestamp; `body` signs the body alone (for senders
 * such as GitHub that sign just the payload). The `standard` scheme always signs `"<id>.<timestamp>.<body>"`.
 */
export type SignedContent = 'timestamped' | 'body';

/** Options of {@link signWebhook}: the body, the secrets, the event id and the timestamp to sign. */
export interface SignOptions {
  /** The exact bytes sent; a string is sent (and signed) as UTF-8. */
  readonly body: string | Uint8Array;
  /**
   * One or more secrets. Each adds a signature, so during a rotation overlap receivers holding either
   * the old or the new secret accept the request. The newest comes first.
   */
  readonly secrets: readonly string[];
  /** The `event_id`; it stays the same on every retry. */
  readonly eventId: string;
  /** Unix seconds of this attempt; made fresh for each attempt. */
  readonly timestamp: number;
  readonly scheme?: SignatureScheme;
  readonly content?: SignedContent;
}

/**
 * Signs a webhook body and returns the headers to send with it (including `content-type`).
 * Web Crypto only, so it runs on every runtime.
 *
 * @example
 * const headers = await signWebhook({ body, secrets: [secret], eventId: 'evt_1', timestamp: 1767225600 });
 * // { 'content-type': 'application/json', 'x-event-id': 'evt_1', 'x-timestamp': '1767225600',
 * //   'x-signature': 'sha256=5d41…' }
 */
export async function signWebhook(options: SignOptions): Promise<Record<string, string>> {
  const { body } = options;
  const timestamp = String(Math.floor(options.timestamp));
  if (options.scheme === 'standard') {
    const parts = [`${options.eventId}.${timestamp}.`, body];
    const signatures = await signAll(options.secrets, 'whsec', parts, 'base64');
    return {
      'content-type': 'application/json',
      'webhook-id': options.eventId,
      'webhook-timestamp': timestamp,
      'webhook-signature': signatures.map((s) => `v1,${s}`).join(' '),
    };
  }
  const parts = options.content === 'body' ? [body] : [`${timestamp}.`, body];
  const signatures = await signAll(options.secrets, 'utf8', parts, 'hex');
  return {
    'content-type': 'application/json',
    'x-event-id': options.eventId,
    'x-timestamp': timestamp,
    'x-signature': signatures.map((s) => `sha256=${s}`).join(','),
  };
}

async function signAll(
  secrets: readonly string[],
  format: 'utf8' | 'whsec',
  parts: readonly (string | Uint8Array)[],
  encoding: SignatureEncoding,
): Promise<string[]> {
  if (secrets.length === 0) throw new TypeError('signWebhook needs at least one secret.');
  const signatures: string[] = [];
  for (const secret of secrets) {
    const key = await hmacKey(secret, format);
    if (!key) throw new TypeError('A webhook secret is empty or not valid for this scheme.');
    signatures.push(await key.sign(parts, encoding));
  }
  return signatures;
}

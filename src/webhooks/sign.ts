import { type Ed25519PrivateJwk, ed25519Signer } from './ed25519.js';
import { type HmacKey, hmacKey, type KeyFormat, type SignatureEncoding } from './hmac.js';
import { signedMessage } from './signed-message.js';

/**
 * Which headers and bytes a signature uses:
 * - `switchboard` (default): `X-Signature: sha256=<hex>`, `X-Timestamp`, `X-Event-Id`; the key is the
 *   secret's UTF-8 bytes.
 * - `standard`: [Standard Webhooks](https://www.standardwebhooks.com/) — `webhook-id`,
 *   `webhook-timestamp`, `webhook-signature: v1,<base64>`; the key is the base64 after `whsec_`. With
 *   Ed25519 private keys instead of secrets, `v1a,<base64>` (the spec's asymmetric signature).
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
  readonly secrets?: readonly string[];
  /**
   * Ed25519 private keys (JWK with `d` and `x`) instead of `secrets`: each adds a Standard Webhooks
   * `v1a` signature over `"<id>.<timestamp>.<body>"`, whatever `scheme` says. The newest comes first.
   */
  readonly privateKeys?: readonly Ed25519PrivateJwk[];
  /** The `event_id`; it stays the same on every retry. */
  readonly eventId: string;
  /** Unix seconds of this attempt; made fresh for each attempt. */
  readonly timestamp: number;
  readonly scheme?: SignatureScheme;
  readonly content?: SignedContent;
}

/**
 * Signs a webhook body and returns the headers to send with it (including `content-type`): HMAC with
 * `secrets`, or Ed25519 (`v1a`) with `privateKeys`; node:crypto where the runtime has it, Web Crypto
 * elsewhere, so it runs on every runtime.
 *
 * @example
 * const headers = await signWebhook({ body, secrets: [secret], eventId: 'evt_1', timestamp: 1767225600 });
 * // { 'content-type': 'application/json', 'x-event-id': 'evt_1', 'x-timestamp': '1767225600',
 * //   'x-signature': 'sha256=5d41…' }
 * const signed = await signWebhook({ body, privateKeys: [jwk], eventId: 'evt_1', timestamp: 1767225600 });
 * // { …, 'webhook-id': 'evt_1', 'webhook-timestamp': '1767225600', 'webhook-signature': 'v1a,…' }
 */
export async function signWebhook(options: SignOptions): Promise<Record<string, string>> {
  const { body, secrets = NONE, privateKeys = NONE } = options;
  if (secrets.length === 0 && privateKeys.length === 0) {
    throw new TypeError('signWebhook needs at least one secret or private key.');
  }
  const timestamp = String(Math.floor(options.timestamp));
  if (privateKeys.length > 0) {
    const message = signedMessage(`${options.eventId}.${timestamp}.`, body);
    let signature = '';
    for (let i = 0; i < privateKeys.length; i++) {
      const sig = ed25519Signer(privateKeys[i]!)(message);
      signature += `${signature ? ' ' : ''}v1a,${typeof sig === 'string' ? sig : await sig}`;
    }
    return {
      'content-type': 'application/json',
      'webhook-id': options.eventId,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    };
  }
  if (options.scheme === 'standard') {
    const prefix = `${options.eventId}.${timestamp}.`;
    let signature = '';
    for (let i = 0; i < secrets.length; i++) {
      const mac = sign(secrets[i]!, 'whsec', prefix, body, 'base64');
      signature += `${signature ? ' ' : ''}v1,${typeof mac === 'string' ? mac : await mac}`;
    }
    return {
      'content-type': 'application/json',
      'webhook-id': options.eventId,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    };
  }
  const prefix = options.content === 'body' ? '' : `${timestamp}.`;
  let signature = '';
  for (let i = 0; i < secrets.length; i++) {
    const mac = sign(secrets[i]!, 'utf8', prefix, body, 'hex');
    signature += `${signature ? ',' : ''}sha256=${typeof mac === 'string' ? mac : await mac}`;
  }
  return {
    'content-type': 'application/json',
    'x-event-id': options.eventId,
    'x-timestamp': timestamp,
    'x-signature': signature,
  };
}

const NONE: readonly never[] = [];

/** One signature; a plain string (nothing to await) where node:crypto signs synchronously. */
function sign(
  secret: string,
  format: KeyFormat,
  prefix: string,
  body: string | Uint8Array,
  encoding: SignatureEncoding,
): string | Promise<string> {
  const key = hmacKey(secret, format);
  return key instanceof Promise
    ? key.then((found) => signWith(found, prefix, body, encoding))
    : signWith(key, prefix, body, encoding);
}

function signWith(
  key: HmacKey | null,
  prefix: string,
  body: string | Uint8Array,
  encoding: SignatureEncoding,
): string | Promise<string> {
  if (!key) throw new TypeError('A webhook secret is empty or not valid for this scheme.');
  return key.sign(prefix, body, encoding);
}

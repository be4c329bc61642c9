import { type Clock, systemClock } from '../core/runtime.js';
import { textEquals } from '../internal/text-equals.js';
import { ed25519Verifier } from './ed25519.js';
import { hmacKey, type KeyFormat, type SignatureEncoding } from './hmac.js';
import type { SignatureScheme, SignedContent } from './sign.js';
import { signedMessage } from './signed-message.js';

/** Why a request failed verification. Safe to show to the sender: none reveals the expected value. */
export type VerifyFailureReason = 'missing_header' | 'malformed' | 'mismatch' | 'stale' | 'future';

/** The outcome of {@link verifyWebhook}: the event id and timestamp when it passed, else why it failed. */
export type VerifyResult =
  | {
      readonly ok: true;
      /** `X-Event-Id` or `webhook-id` as sent (only signed in the `standard` scheme). */
      readonly eventId: string | null;
      /** Unix seconds from the timestamp header, when there is one. */
      readonly timestamp: number | null;
    }
  | { readonly ok: false; readonly reason: VerifyFailureReason; readonly message: string };

/**
 * A public key as a JWK set lists it: the Ed25519 ones (`kty` `OKP`, `crv` `Ed25519`) verify, others
 * are skipped, so a whole set fetched from `/.well-known/webhook-keys` can be passed as it is.
 */
export interface WebhookPublicKey {
  readonly kty?: string;
  readonly crv?: string;
  readonly x?: string;
  readonly kid?: string;
}

/** Options of {@link verifyWebhook}: the raw body, the headers, the valid secrets and the scheme. */
export interface VerifyOptions {
  /** The raw body bytes exactly as received: verify before parsing, never a re-serialised object. */
  readonly body: string | Uint8Array;
  readonly headers: Headers | Readonly<Record<string, string>>;
  /** Every secret currently valid; any of them may have signed (rotation without downtime). */
  readonly secrets?: readonly string[];
  /**
   * Ed25519 public keys, for the Standard Webhooks `v1a` signatures of an `ed25519` endpoint: the JWK
   * set of the sender's `/.well-known/webhook-keys` as fetched (`{ keys: [...] }`), or its keys. Any of
   * them may have signed (a rotation publishes old and new). With keys, the scheme is `standard`; with
   * `secrets` too, a `v1` signature by a secret passes as well (while an endpoint moves to ed25519).
   */
  readonly publicKeys?: readonly WebhookPublicKey[] | { readonly keys: readonly WebhookPublicKey[] };
  readonly scheme?: SignatureScheme;
  readonly content?: SignedContent;
  /** How far the timestamp may be from now, in either direction (default 300 s). */
  readonly toleranceSeconds?: number;
  readonly clock?: Clock;
  /** `switchboard` scheme only: where the signature is (default `x-signature`). */
  readonly signatureHeader?: string;
  /** `switchboard` scheme only: where the timestamp is (default `x-timestamp`). */
  readonly timestampHeader?: string;
}

const fail = (reason: VerifyFailureReason, message: string): VerifyResult => ({ ok: false, reason, message });

/**
 * Verifies a signed webhook: recomputes the HMAC-SHA256 over the raw bytes with each secret and
 * compares in constant time, or with `publicKeys` checks the Ed25519 `v1a` signatures against each
 * key; and checks the timestamp is within the tolerance both ways. Never throws on bad input; a failure
 * says why.
 *
 * @example
 * const body = new Uint8Array(await request.arrayBuffer());
 * const result = await verifyWebhook({ body, headers: request.headers, secrets: [secret] });
 * if (!result.ok) return new Response(result.message, { status: 401 });
 */
export async function verifyWebhook(options: VerifyOptions): Promise<VerifyResult> {
  const { headers } = options;
  // An array is a list of keys (it has a `keys` method of its own); anything else is a JWK set.
  const given = options.publicKeys;
  const publicKeys: readonly WebhookPublicKey[] | undefined =
    given === undefined
      ? undefined
      : Array.isArray(given)
        ? given
        : ((given as { keys: WebhookPublicKey[] }).keys ?? []);
  const asymmetric = publicKeys !== undefined;
  const standard = options.scheme === 'standard' || asymmetric;
  const timestampName = standard ? 'webhook-timestamp' : (options.timestampHeader ?? 'x-timestamp');
  const signatureName = standard ? 'webhook-signature' : (options.signatureHeader ?? 'x-signature');
  const idName = standard ? 'webhook-id' : 'x-event-id';
  const timestampRequired = standard || options.content !== 'body';

  const signatureText = header(headers, signatureName);
  if (!signatureText) return fail('missing_header', `The ${signatureName} header is missing.`);
  const eventId = header(headers, idName);
  if (standard && !eventId) return fail('missing_header', 'The webhook-id header is missing.');
  const timestampHeader = header(headers, timestampName);
  if (!timestampHeader && timestampRequired) {
    return fail('missing_header', `The ${timestampName} header is missing.`);
  }

  let timestamp: number | null = null;
  const timestampText = timestampHeader?.trim();
  if (timestampHeader) {
    timestamp = unixSeconds(timestampText!);
    if (timestamp === null) return fail('malformed', `The ${timestampName} header must be Unix seconds.`);
    const tolerance = options.toleranceSeconds ?? 300;
    const now = Math.floor((options.clock ?? systemClock).now() / 1000);
    if (timestamp < now - tolerance)
      return fail('stale', `The timestamp is older than ${tolerance} seconds.`);
    if (timestamp > now + tolerance) {
      return fail('future', `The timestamp is more than ${tolerance} seconds in the future.`);
    }
  }

  // With both keys and secrets (a receiver while its endpoint moves to ed25519), either kind passes.
  // `v1` values are checked for base64 only if none matches: one that is not can match nothing.
  const signatures = standard ? parseStandard(signatureText, 'v1,') : parseHex(signatureText);
  const asymmetricSignatures = asymmetric ? parseStandard(signatureText, 'v1a,').filter(isBase64) : NONE;
  const shape = asymmetric ? 'v1a,<base64>' : standard ? 'v1,<base64>' : 'sha256=<hex>';
  if (signatures.length === 0 && asymmetricSignatures.length === 0) return malformed(signatureName, shape);

  const prefix = standard
    ? `${eventId}.${timestampText}.`
    : options.content === 'body'
      ? ''
      : `${timestampText}.`;
  if (publicKeys && asymmetricSignatures.length > 0) {
    const message = signedMessage(prefix, options.body);
    for (const key of publicKeys) {
      if (key.kty !== 'OKP' || key.crv !== 'Ed25519' || typeof key.x !== 'string') continue;
      const verify = ed25519Verifier({ kty: 'OKP', crv: 'Ed25519', x: key.x });
      for (const signature of asymmetricSignatures) {
        const valid = verify(message, signature);
        if (typeof valid === 'boolean' ? valid : await valid) return { ok: true, eventId, timestamp };
      }
    }
  }
  const format: KeyFormat = standard ? 'whsec' : 'utf8';
  const encoding: SignatureEncoding = standard ? 'base64' : 'hex';
  // Indexed loops: this runs per request, and an array iterator per loop showed in profiles.
  const secrets = options.secrets ?? NONE;
  for (let i = 0; i < secrets.length; i++) {
    const found = hmacKey(secrets[i]!, format);
    const key = found instanceof Promise ? await found : found;
    if (!key) continue;
    // One HMAC per secret, compared with every signature the header carries.
    const mac = key.sign(prefix, options.body, encoding);
    const expected = typeof mac === 'string' ? mac : await mac;
    for (let j = 0; j < signatures.length; j++) {
      if (textEquals(signatures[j]!, expected)) return { ok: true, eventId, timestamp };
    }
  }
  if (asymmetricSignatures.length === 0 && !signatures.some(isBase64)) return malformed(signatureName, shape);
  return fail('mismatch', 'The signature does not match the body and timestamp.');
}

const NONE: readonly string[] = [];

const malformed = (name: string, shape: string): VerifyResult =>
  fail('malformed', `The ${name} header must look like ${shape}.`);

/** Digits only, at most 12 (Unix seconds), read without a regular expression; else null. */
function unixSeconds(text: string): number | null {
  if (text.length === 0 || text.length > 12) return null;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return null;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A header by its lower-case name. A plain record is read in place (no copy per request): the
 * lower-case spelling first, as node:http and fetch give it; else any other spelling (the last wins).
 */
function header(headers: VerifyOptions['headers'], name: string): string | null {
  // Any Headers-like object (the Node adapter may hand over a lazy view of the incoming headers).
  if (typeof headers.get === 'function') return (headers as Headers).get(name);
  const record = headers as Readonly<Record<string, string>>;
  if (Object.hasOwn(record, name)) return record[name]!;
  let found: string | null = null;
  for (const key in record) {
    if (key.length === name.length && key.toLowerCase() === name && Object.hasOwn(record, key)) {
      found = record[key]!;
    }
  }
  return found;
}

/** The hex digests of `sha256=<hex>` entries (several, comma-separated, during a rotation), lower-cased; other entries are skipped. */
function parseHex(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(',')) {
    const match = /^sha256=([0-9a-fA-F]+)$/.exec(part.trim());
    if (match && match[1]!.length % 2 === 0) out.push(match[1]!.toLowerCase());
  }
  return out;
}

const isBase64 = (value: string): boolean => /^[A-Za-z0-9+/]+={0,2}$/.test(value);

/**
 * The values (not yet checked as base64) of `v1,<base64>` (or, with `version` `v1a,`, the Ed25519 `v1a,<base64>`) entries,
 * separated by white space (other versions are skipped). Text after a second comma is ignored.
 */
function parseStandard(text: string, version: 'v1,' | 'v1a,'): string[] {
  const out: string[] = [];
  const trimmed = text.trim();
  if (!/\s/.test(trimmed)) return addValue(out, trimmed, version);
  for (const part of trimmed.split(/\s+/)) addValue(out, part, version);
  return out;
}

/** Adds the value of one `<version><value>[,…]` entry to `out`, if `part` is one. */
function addValue(out: string[], part: string, version: string): string[] {
  if (!part.startsWith(version)) return out;
  const end = part.indexOf(',', version.length);
  const value = end === -1 ? part.slice(version.length) : part.slice(version.length, end);
  if (value) out.push(value);
  return out;
}

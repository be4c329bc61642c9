/**
 * Random secrets and their hashes. Tokens, codes, client secrets and API keys are 256-bit random
 * strings, so SHA-256 is the right hash at rest (a slow password hash adds nothing to that entropy);
 * comparisons run in constant time on the hashes.
 */
import { sha256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import {
  decodeHex,
  encodeBase32LowerCaseNoPadding,
  encodeBase64urlNoPadding,
  encodeHexLowerCase,
} from '@oslojs/encoding';
import { nativeCrypto, nativeSha256 } from '../internal/native-crypto.js';

const encoder = new TextEncoder();

/** Every access token starts with this; anything else in `Authorization: Bearer` is taken for an API key. */
export const ACCESS_TOKEN_PREFIX = 'sbat_';

/**
 * A 256-bit random string with a readable prefix, in lower-case base32 so it survives copy and paste
 * and a double-click selects all of it.
 *
 * @example
 * randomSecret('sbk_') // 'sbk_3n2k…' (56 characters)
 */
export function randomSecret(prefix = ''): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return `${prefix}${encodeBase32LowerCaseNoPadding(bytes)}`;
}

/** 256 random bits as base64url: for `state`, PKCE verifiers and nonces (RFC 7636 §4.1). */
export function randomUrlSafe(bytes = 32): string {
  const buffer = new Uint8Array(bytes);
  crypto.getRandomValues(buffer);
  return encodeBase64urlNoPadding(buffer);
}

/** SHA-256 of the UTF-8 text, as lower-case hex: how every secret is stored. */
export function hashSecret(secret: string): string {
  // Runs on every authenticated request: native where the runtime has it.
  return nativeSha256(secret, 'hex') ?? encodeHexLowerCase(sha256(encoder.encode(secret)));
}

function sha256Of(text: string): Uint8Array {
  return nativeCrypto
    ? new Uint8Array(nativeCrypto.createHash('sha256').update(text).digest())
    : sha256(encoder.encode(text));
}

/** Whether `secret` hashes to `storedHash`, compared in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  let expected: Uint8Array;
  try {
    expected = decodeHex(storedHash);
  } catch {
    return false;
  }
  const actual = sha256Of(secret);
  return expected.length === actual.length && constantTimeEqual(actual, expected);
}

/**
 * The S256 PKCE challenge of a verifier: `BASE64URL(SHA256(ASCII(verifier)))` (RFC 7636 §4.2).
 *
 * @example
 * pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk') // 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
 */
export function pkceChallenge(verifier: string): string {
  return encodeBase64urlNoPadding(sha256Of(verifier));
}

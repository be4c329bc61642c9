/**
 * Ed25519 for Standard Webhooks' `v1a` signatures: `node:crypto`'s synchronous sign and verify where
 * the runtime has it (Node, Deno, Bun; Web Crypto's Ed25519 is still experimental on Node 20 and warns),
 * Web Crypto elsewhere (workerd). Keys travel as JWK members: `x` the public key, `d` the private seed.
 */
import { decodeBase64, encodeBase64 } from '@oslojs/encoding';
import { kept } from '../internal/kept.js';
import { type NativeKey, nativeCrypto } from '../internal/native-crypto.js';

/** An Ed25519 public key as a JWK (RFC 8037): `kty` `OKP`, `crv` `Ed25519`, `x` base64url. */
export interface Ed25519PublicJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
  readonly kid?: string;
}

/** An Ed25519 private key as a JWK: the public members and `d`, the base64url seed. */
export interface Ed25519PrivateJwk extends Ed25519PublicJwk {
  readonly d: string;
}

/** Signs a message; a plain string (nothing to await) where node:crypto signs synchronously. */
export type Ed25519Sign = (message: Uint8Array<ArrayBuffer>) => string | Promise<string>;
/** Checks a signature over a message; never throws on a key or signature that is not one. */
export type Ed25519Verify = (
  message: Uint8Array<ArrayBuffer>,
  signature: string,
) => boolean | Promise<boolean>;

const MAX_CACHED_KEYS = 64;
const signers = new Map<string, Ed25519Sign>();
const verifiers = new Map<string, Ed25519Verify>();

/** A new key pair, as a private JWK (which holds the public `x` too). */
export async function generateEd25519Key(): Promise<Ed25519PrivateJwk> {
  const native = nativeCrypto;
  const jwk = native?.generateKeyPairSync
    ? native.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })
    : await crypto.subtle
        .generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])
        .then((pair) => crypto.subtle.exportKey('jwk', (pair as CryptoKeyPair).privateKey));
  if (typeof jwk.d !== 'string' || typeof jwk.x !== 'string')
    throw new Error('Ed25519 export has no d or x.');
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d };
}

/** The signer of a private key, imported once and kept (a sender signs with the same key all day). */
export function ed25519Signer(key: Ed25519PrivateJwk): Ed25519Sign {
  return kept(signers, key.d, MAX_CACHED_KEYS, () => {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: key.x, d: key.d };
    const native = nativeCrypto;
    if (native?.sign && native.createPrivateKey) {
      const keyObject: NativeKey = native.createPrivateKey({ key: jwk, format: 'jwk' });
      const sign = native.sign;
      return (message) => encodeBase64(sign(null, message, keyObject));
    }
    const imported = crypto.subtle.importKey('jwk', jwk, { name: 'Ed25519' }, false, ['sign']);
    return async (message) =>
      encodeBase64(new Uint8Array(await crypto.subtle.sign('Ed25519', await imported, message)));
  });
}

/** The verifier of a public key; one whose `x` is not a key verifies nothing. */
export function ed25519Verifier(key: Ed25519PublicJwk): Ed25519Verify {
  return kept(verifiers, key.x, MAX_CACHED_KEYS, () => {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: key.x };
    const native = nativeCrypto;
    if (native?.verify && native.createPublicKey) {
      let keyObject: NativeKey;
      try {
        keyObject = native.createPublicKey({ key: jwk, format: 'jwk' });
      } catch {
        return () => false;
      }
      const verify = native.verify;
      return (message, signature) => {
        const bytes = signatureBytes(signature);
        return bytes !== null && verify(null, message, keyObject, bytes);
      };
    }
    const imported = crypto.subtle
      .importKey('jwk', jwk, { name: 'Ed25519' }, false, ['verify'])
      .catch(() => null);
    return async (message, signature) => {
      const publicKey = await imported;
      const bytes = signatureBytes(signature);
      return (
        publicKey !== null && bytes !== null && crypto.subtle.verify('Ed25519', publicKey, bytes, message)
      );
    };
  });
}

/** An Ed25519 signature is 64 bytes; anything else is not one (and costs no verification). */
function signatureBytes(base64: string): Uint8Array<ArrayBuffer> | null {
  try {
    const bytes = new Uint8Array(decodeBase64(base64));
    return bytes.byteLength === 64 ? bytes : null;
  } catch {
    return null;
  }
}

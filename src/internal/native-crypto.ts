/**
 * `node:crypto`, where the runtime has it (Node, Deno, Bun), found at run time through
 * `process.getBuiltinModule` so that the core imports no `node:` module and still runs where there is
 * none (edge runtimes, browsers). Its hashes and HMACs are synchronous and several times faster than
 * pure JavaScript or an awaited `crypto.subtle` call; callers fall back to those when it is absent.
 */

/** The few parts of `node:crypto` the fast paths use. */
export interface NativeCrypto {
  /** One-shot hash (Node ≥ 20.12, Deno, Bun): no hash object per call. */
  hash?(algorithm: 'sha256', data: string | Uint8Array, encoding: 'hex' | 'base64url'): string;
  createHash(algorithm: 'sha256'): NativeDigest;
  createHmac(algorithm: 'sha256', key: Uint8Array | NativeKey): NativeDigest;
  /** A key made once for many HMACs: each then skips copying and checking the key bytes. */
  createSecretKey?(key: Uint8Array): NativeKey;
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
  /** Ed25519 (with `algorithm` null): synchronous, and stable on Node 20 where Web Crypto's is not. */
  sign?(algorithm: null, data: Uint8Array, key: NativeKey): Uint8Array;
  verify?(algorithm: null, data: Uint8Array, key: NativeKey, signature: Uint8Array): boolean;
  createPrivateKey?(options: { readonly key: JsonWebKey; readonly format: 'jwk' }): NativeKey;
  createPublicKey?(options: { readonly key: JsonWebKey; readonly format: 'jwk' }): NativeKey;
  generateKeyPairSync?(type: 'ed25519'): { readonly privateKey: NativeKey; readonly publicKey: NativeKey };
}

/** A `node:crypto` KeyObject, opaque but for its JWK export. */
export interface NativeKey {
  export(options: { readonly format: 'jwk' }): JsonWebKey;
}

interface NativeDigest {
  update(data: string | Uint8Array): NativeDigest;
  digest(): Uint8Array;
  digest(encoding: 'hex' | 'base64' | 'base64url'): string;
}

interface ProcessWithBuiltins {
  getBuiltinModule?(id: string): unknown;
}

function lookUp(): NativeCrypto | undefined {
  try {
    const process = (globalThis as { process?: ProcessWithBuiltins }).process;
    const found = process?.getBuiltinModule?.('node:crypto') as Partial<NativeCrypto> | undefined;
    return typeof found?.createHash === 'function' &&
      typeof found.createHmac === 'function' &&
      typeof found.timingSafeEqual === 'function'
      ? (found as NativeCrypto)
      : undefined;
  } catch {
    return undefined;
  }
}

export const nativeCrypto: NativeCrypto | undefined = lookUp();

/** SHA-256 of text (UTF-8) or bytes, encoded; undefined where the runtime has no native crypto. */
export function nativeSha256(data: string | Uint8Array, encoding: 'hex' | 'base64url'): string | undefined {
  if (!nativeCrypto) return undefined;
  return nativeCrypto.hash
    ? nativeCrypto.hash('sha256', data, encoding)
    : nativeCrypto.createHash('sha256').update(data).digest(encoding);
}

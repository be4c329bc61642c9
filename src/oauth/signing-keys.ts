/**
 * Keys that sign ID tokens, published at the JWKS endpoint. Signing goes through `crypto.subtle`; the
 * JWT encoding through `@oslojs/jwt`. Rotation: `rotate()` makes a new key current and keeps the
 * previous ones published, so tokens signed just before the rotation still verify.
 */
import { createJWTSignatureMessage, encodeJWT } from '@oslojs/jwt';
import { randomUrlSafe } from './secrets.js';

/** The JWS algorithms ID tokens can be signed with: ECDSA P-256 (`ES256`) or RSA (`RS256`). */
export type SigningAlgorithm = 'ES256' | 'RS256';

/** A key pair with its id (`kid`) and algorithm. Export `privateKey` as JWK to keep it across restarts. */
export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

const PARAMS = {
  ES256: { generate: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
  RS256: {
    generate: {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-256',
    },
    sign: { name: 'RSASSA-PKCS1-v1_5' },
  },
} as const;

/**
 * Makes a new signing key (ES256 by default).
 *
 * @example
 * const key = await generateSigningKey({ alg: 'ES256' });
 */
export async function generateSigningKey(
  options: { alg?: SigningAlgorithm; kid?: string } = {},
): Promise<SigningKey> {
  const alg = options.alg ?? 'ES256';
  const pair = (await crypto.subtle.generateKey(PARAMS[alg].generate, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  return {
    kid: options.kid ?? randomUrlSafe(12),
    alg,
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
  };
}

/** The current signing key plus older ones still published for verification. */
export interface KeyRing {
  /** Signs a JWT with the current key (RFC 7515 compact serialisation). */
  sign(payload: Record<string, unknown>): Promise<string>;
  /** The public keys as a JWK Set (RFC 7517 §5), newest first. */
  jwks(): Promise<{ keys: JsonWebKey[] }>;
  /** Makes `next` (or a fresh key of the same algorithm) current; keeps `retain` older keys published. */
  rotate(next?: SigningKey): Promise<void>;
  readonly algorithms: readonly SigningAlgorithm[];
}

/** Options of {@link createKeyRing}: the keys to start with and how many old ones stay published. */
export interface KeyRingOptions {
  /** Newest first; the first signs. A fresh ES256 key is generated when empty. */
  readonly keys?: readonly SigningKey[];
  /** How many previous keys stay in the JWKS after a rotation (default 2). */
  readonly retain?: number;
}

/**
 * Creates a {@link KeyRing} over the given keys; with none, it makes a fresh ES256 key on first use
 * (never while constructing).
 *
 * @example
 * const ring = createKeyRing({ keys: [await generateSigningKey()] });
 * const jwt = await ring.sign({ iss: 'https://auth.example.com', sub: 'cli_1' });
 * await ring.rotate();
 */
export function createKeyRing(options: KeyRingOptions = {}): KeyRing {
  const retain = options.retain ?? 2;
  let keys: SigningKey[] = [...(options.keys ?? [])];
  // Made at first use, never at construction: a Worker refuses random values in its module scope,
  // also in the promise jobs a constructor would leave behind.
  let made: Promise<void> | undefined;
  const ensure = (): Promise<void> => {
    made ??= keys.length
      ? Promise.resolve()
      : generateSigningKey().then((key) => {
          keys = [key];
        });
    return made;
  };
  const current = async (): Promise<SigningKey> => {
    await ensure();
    return keys[0]!;
  };
  return {
    get algorithms(): readonly SigningAlgorithm[] {
      return keys.length ? [...new Set(keys.map((k) => k.alg))] : (['ES256'] as const);
    },
    async sign(payload) {
      const key = await current();
      const header = JSON.stringify({ alg: key.alg, typ: 'JWT', kid: key.kid });
      const body = JSON.stringify(payload);
      const message = new Uint8Array(createJWTSignatureMessage(header, body));
      const signature = await crypto.subtle.sign(PARAMS[key.alg].sign, key.privateKey, message);
      // ECDSA in Web Crypto already yields r‖s (IEEE P1363), the JWS format (RFC 7518 §3.4).
      return encodeJWT(header, body, new Uint8Array(signature));
    },
    async jwks() {
      await ensure();
      const published = await Promise.all(
        keys.map(async (key) => {
          const { kty, crv, x, y, n, e } = await crypto.subtle.exportKey('jwk', key.publicKey);
          const jwk: JsonWebKey & { kid: string; use: string } = {
            kty,
            kid: key.kid,
            use: 'sig',
            alg: key.alg,
          };
          Object.assign(jwk, kty === 'EC' ? { crv, x, y } : { n, e });
          return jwk;
        }),
      );
      return { keys: published };
    },
    async rotate(next) {
      await ensure();
      const key = next ?? (await generateSigningKey({ alg: keys[0]?.alg ?? 'ES256' }));
      keys = [key, ...keys].slice(0, retain + 1);
    },
  };
}

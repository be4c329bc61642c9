/**
 * The deployment's Ed25519 keys for `ed25519` endpoints (Standard Webhooks `v1a`), kept in storage so
 * every instance signs with the same ones. Rotation mirrors an endpoint's secret rotation: a new key
 * becomes active and the previous ones keep signing beside it, and stay published, until the overlap
 * ends, so a receiver holding a cached key set verifies throughout.
 */
import type { Runtime } from '../core/runtime.js';
import { isoAt, isoOrNull } from '../core/runtime.js';
import type { WebhookSigningKeyRecord } from '../core/storage/index.js';
import { validate } from '../core/validation.js';
import { RotateSecretInput } from './admin-schemas.js';
import { type Ed25519PrivateJwk, generateEd25519Key } from './ed25519.js';

/** A public key of the JWK set (RFC 7517 §4, RFC 8037 §2). */
export interface WebhookPublicJwk {
  readonly kty: 'OKP';
  readonly crv: 'Ed25519';
  readonly x: string;
  readonly kid: string;
  readonly use: 'sig';
  readonly alg: 'EdDSA';
}

/** A key as admins see it: never its private half. Times are ISO-8601 text. */
export interface WebhookSigningKey {
  readonly kid: string;
  readonly algorithm: 'Ed25519';
  /** The JWK `x` (base64url): what receivers verify with. */
  readonly publicKey: string;
  /** True for the key new deliveries are signed with first; the others sign beside it until they expire. */
  readonly active: boolean;
  readonly createdAt: string;
  /** When a rotated-out key stops signing and is no longer published; null for the active key. */
  readonly expiresAt: string | null;
}

/** Options of {@link createWebhookKeyRing}. */
export interface WebhookKeyRingOptions {
  /** How long a rotated-out key keeps signing and stays published, unless the call says otherwise (24 h). */
  readonly rotationOverlapMs?: number;
  /**
   * How long an instance signs with the keys it read before reading them again (default 60 s): how soon
   * other instances follow a rotation made elsewhere (the instance that rotates follows at once).
   */
  readonly refreshMs?: number;
}

/** The deployment's signing keys: what signs, what is published, and the rotation. */
export interface WebhookKeyRing {
  /** The private keys that sign a delivery now, the active one first; made on first need. */
  signingKeys(): Promise<readonly Ed25519PrivateJwk[]>;
  /** The public keys as a JWK set, the active one first: `/.well-known/webhook-keys`. */
  jwks(): Promise<{ readonly keys: readonly WebhookPublicJwk[] }>;
  /** The keys not yet expired, the active one first. */
  list(): Promise<WebhookSigningKey[]>;
  /**
   * Makes a new key active; the previous ones keep signing beside it for `overlapSeconds` (default
   * 24 h; 0 drops them at once, for a key that leaked). Answers the keys after the rotation.
   */
  rotate(input?: unknown): Promise<WebhookSigningKey[]>;
}

interface Loaded {
  readonly keys: readonly WebhookSigningKeyRecord[];
  readonly at: number;
}

/**
 * Creates a {@link WebhookKeyRing} over the runtime's storage. Nothing is read or made until asked: a
 * Worker refuses random values (a new key) in its module scope.
 *
 * @example
 * const ring = createWebhookKeyRing(runtime);
 * const { keys } = await ring.jwks();
 * await ring.rotate({ overlapSeconds: 86_400 });
 */
export function createWebhookKeyRing(
  runtime: Pick<Runtime, 'storage' | 'clock' | 'ids'>,
  options: WebhookKeyRingOptions = {},
): WebhookKeyRing {
  const { storage, clock, ids } = runtime;
  const store = storage.webhooks.signingKeys;
  const overlapMs = options.rotationOverlapMs ?? 86_400_000;
  const refreshMs = options.refreshMs ?? 60_000;
  let loaded: Promise<Loaded> | undefined;

  const newKey = async (now: number): Promise<WebhookSigningKeyRecord> => {
    const jwk = await generateEd25519Key();
    return {
      id: ids('whk'),
      algorithm: 'Ed25519',
      publicKey: jwk.x,
      privateKey: jwk.d,
      createdAt: now,
      expiresAt: null,
    };
  };
  /** The keys in storage, with an active one made when there is none (one instance wins the race). */
  const load = async (): Promise<Loaded> => {
    for (;;) {
      const now = clock.now();
      const keys = await store.list(now);
      if (keys[0]?.expiresAt === null) return { keys, at: now };
      const key = await newKey(now);
      if (await store.activate(key, { expectedActiveId: null, retireAt: now, now })) {
        return { keys: await store.list(now), at: now };
      }
    }
  };
  /** The keys not expired now, read again once `refreshMs` has passed. */
  const current = async (): Promise<readonly WebhookSigningKeyRecord[]> => {
    const now = clock.now();
    let found = loaded;
    if (found) {
      const settled = await found.catch(() => undefined);
      if (!settled || now - settled.at >= refreshMs) found = undefined;
    }
    if (!found) {
      found = load();
      loaded = found;
    }
    const { keys } = await found;
    return keys.filter((k) => k.expiresAt === null || k.expiresAt > now);
  };
  const toView = (key: WebhookSigningKeyRecord): WebhookSigningKey => ({
    kid: key.id,
    algorithm: key.algorithm,
    publicKey: key.publicKey,
    active: key.expiresAt === null,
    createdAt: isoAt(key.createdAt),
    expiresAt: isoOrNull(key.expiresAt),
  });

  return {
    async signingKeys() {
      return (await current()).map((k) => ({ kty: 'OKP', crv: 'Ed25519', x: k.publicKey, d: k.privateKey }));
    },
    async jwks() {
      const keys = (await current()).map(
        (k): WebhookPublicJwk => ({
          kty: 'OKP',
          crv: 'Ed25519',
          x: k.publicKey,
          kid: k.id,
          use: 'sig',
          alg: 'EdDSA',
        }),
      );
      return { keys };
    },
    async list() {
      return (await current()).map(toView);
    },
    async rotate(input = {}) {
      const { overlapSeconds } = validate(RotateSecretInput, input ?? {});
      for (;;) {
        const now = clock.now();
        const active = (await store.list(now)).find((k) => k.expiresAt === null);
        const retireAt = now + (overlapSeconds === undefined ? overlapMs : overlapSeconds * 1000);
        const key = await newKey(now);
        if (await store.activate(key, { expectedActiveId: active?.id ?? null, retireAt, now })) break;
      }
      // This instance follows at once; the others within `refreshMs`.
      loaded = undefined;
      return (await current()).map(toView);
    },
  };
}

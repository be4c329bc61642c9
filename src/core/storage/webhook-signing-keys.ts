/**
 * The deployment's key pairs that sign `ed25519` webhook deliveries (Standard Webhooks `v1a`): one
 * active key, and the keys it replaced, still published until they expire. They belong to the
 * deployment, not to an endpoint: receivers verify with the public keys of `/.well-known/webhook-keys`.
 */

/** One Ed25519 key pair, as the JWK members that carry it. */
export interface WebhookSigningKeyRecord {
  /** The key id (`kid` in the JWK set). */
  readonly id: string;
  readonly algorithm: 'Ed25519';
  /** The public key: the JWK `x`, base64url of its 32 bytes. */
  readonly publicKey: string;
  /**
   * The private key: the JWK `d`, base64url of its 32-byte seed. An adapter given an encryption key
   * seals it before it stores it, and opens it only to hand it back here.
   */
  readonly privateKey: string;
  readonly createdAt: number;
  /** When a rotated-out key stops being published (and signing); null for the active key. */
  readonly expiresAt: number | null;
}

/** Options of {@link WebhookSigningKeyStore.activate}. */
export interface WebhookSigningKeyActivation {
  /** The active key the caller read (null: none); another one active means another rotation won. */
  readonly expectedActiveId: string | null;
  /** Every other key not yet expired expires then at the latest (the overlap's end). */
  readonly retireAt: number;
  /** Keys expired by now are deleted. Epoch ms. */
  readonly now: number;
}

/** The deployment's signing keys; at most one is active (`expiresAt` null) at any time. */
export interface WebhookSigningKeyStore {
  /** Keys not expired at `now`: the active one first, then the others newest first. */
  list(now: number): Promise<WebhookSigningKeyRecord[]>;
  /**
   * Makes `key` (whose `expiresAt` must be null) the active key, compare-and-set on the active key's id,
   * and in the same write retires the others (see {@link WebhookSigningKeyActivation}). False, and
   * nothing written, when the active key is no longer `expectedActiveId`.
   */
  activate(key: WebhookSigningKeyRecord, options: WebhookSigningKeyActivation): Promise<boolean>;
}

/** The outcome of trying to claim an idempotency key. */
export type IdempotencyClaim =
  | { readonly state: 'claimed' }
  /** Someone else holds the key and has not finished yet. */
  | { readonly state: 'in_progress' }
  /** Already done; `result` is what the first caller stored (e.g. a serialised response). */
  | { readonly state: 'completed'; readonly result: string | null };

/** Options of {@link IdempotencyStore.claim}: the time, and how long an unfinished claim holds. */
export interface IdempotencyClaimOptions {
  readonly now: number;
  /** How long an unfinished claim blocks others before it counts as abandoned (its worker died). */
  readonly lockMs: number;
}

/**
 * Keys that make an operation happen once: a webhook `event_id` on the receiver side, an
 * `Idempotency-Key` on a REST POST. Callers namespace keys (`webhook:evt_1`, `rest:<caller>:<key>`).
 */
export interface IdempotencyStore {
  /** Atomic: of many concurrent callers with the same key exactly one gets `claimed`. */
  claim(key: string, options: IdempotencyClaimOptions): Promise<IdempotencyClaim>;
  /** Marks the key done with its result; kept until `expiresAt` (epoch ms), then forgotten. */
  complete(key: string, result: string | null, expiresAt: number): Promise<void>;
  /** Gives an unfinished claim back, e.g. when processing failed, so a retry can claim it again. */
  release(key: string): Promise<void>;
}

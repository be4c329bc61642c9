import { SwitchboardError } from '../errors.js';
import type { DomainEvent } from '../events.js';
import { type Clock, type IdGenerator, isoAt } from '../runtime.js';
import type { Storage, Stores } from '../storage/index.js';
import { currentTraceparent } from '../telemetry/index.js';

/** What every domain service shares: storage, time, ids, and how to announce a commit. */
export interface DomainContext {
  readonly storage: Storage;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Called after every committed write, e.g. to wake the outbox relay. */
  readonly onCommit: () => void;
}

/**
 * Options of a create. `within` runs in the same transaction, after the record is written: what it
 * writes lands if and only if the record does (the REST layer stores an `Idempotency-Key`'s answer so).
 */
export interface CreateOptions<T> {
  readonly within?: (tx: Stores, created: T) => Promise<void>;
}

/** Options of a write that may be conditional on the version the caller last saw (`If-Match`). */
export interface WriteOptions {
  readonly ifVersion?: number;
}

/**
 * An event of now, in the current trace, about `about.subject` (its `sequence` comes from the outbox),
 * of a record `about.owner` (a client id) owns when given, made through the interface `about.via` when
 * its caller said.
 */
export function newEvent(
  ctx: Pick<DomainContext, 'clock' | 'ids'>,
  type: string,
  data: Record<string, unknown>,
  about: { readonly subject?: string; readonly owner?: string; readonly via?: string } = {},
): DomainEvent {
  const made: { -readonly [K in keyof DomainEvent]: DomainEvent[K] } = {
    id: ctx.ids('evt'),
    type,
    occurredAt: isoAt(ctx.clock.now()),
    data,
  };
  if (about.subject !== undefined) made.subject = about.subject;
  if (about.owner !== undefined) made.owner = about.owner;
  if (about.via !== undefined) made.via = about.via;
  // The trace of the request that caused it, when one records: its webhooks join that trace.
  const traceparent = currentTraceparent();
  if (traceparent) made.traceparent = traceparent;
  return made;
}

/** Runs a write in a transaction and announces it once committed. */
export async function commit<T>(ctx: DomainContext, work: (tx: Stores) => Promise<T>): Promise<T> {
  const result = await ctx.storage.transaction(work);
  ctx.onCommit();
  return result;
}

const RACE_ATTEMPTS = 5;

/**
 * Read-modify-write with compare-and-set on `version`. With `ifVersion` a stale version fails at once
 * (412); without it, a write that lost a race to a concurrent one is retried on fresh data.
 * `attempt` returns null when its compare-and-set lost.
 */
export async function withRetry<T>(options: WriteOptions, attempt: () => Promise<T | null>): Promise<T> {
  for (let i = 0; i < RACE_ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== null) return result;
    if (options.ifVersion !== undefined) break;
  }
  throw options.ifVersion !== undefined
    ? stale()
    : new SwitchboardError('conflict', 'The record kept changing while it was being updated; try again.');
}

export function checkVersion(options: WriteOptions, version: number): void {
  if (options.ifVersion !== undefined && options.ifVersion !== version) throw stale();
}

function stale(): SwitchboardError {
  return new SwitchboardError(
    'precondition_failed',
    'The record has changed since you read it; read it again and retry.',
  );
}

/** Refuses a life-cycle move that `allowed` (the moves from `from`) does not list: a `conflict` saying which are. */
export function assertMove(
  kind: string,
  field: string,
  from: string,
  to: string,
  allowed: readonly string[],
): void {
  if (allowed.includes(to)) return;
  const options = allowed.length ? `it can become ${allowed.join(' or ')}` : 'it cannot change any more';
  const article = /^[aeiou]/.test(kind) ? 'An' : 'A';
  throw new SwitchboardError(
    'conflict',
    `${article} ${kind} that is ${from} cannot become ${to}: ${options}.`,
    {
      details: [{ field, code: 'invalid_transition', message: `${from} → ${to} is not allowed.` }],
    },
  );
}

export function notFound(kind: string, id: string): SwitchboardError {
  return new SwitchboardError('not_found', `No ${kind} with id "${id}".`);
}

/**
 * `Idempotency-Key` on POST (draft-ietf-httpapi-idempotency-key-header): a retried POST with the same
 * key and the same body gets the first answer again instead of creating a second record. Keys are
 * namespaced by caller and path, so two callers (or two collections) never share one.
 */
import type { CreateOptions } from '../core/domain/index.js';
import { SwitchboardError } from '../core/errors.js';
import type { IdempotencyStore } from '../core/storage/index.js';
import { bodyTag } from './conditional.js';
import { type Answer, isAnswer } from './responses.js';

/** How long a finished key answers with its stored response. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long an unfinished claim blocks retries before it counts as abandoned (its process died before
 * committing anything: what commits stores its answer in the same transaction). A retry within it is
 * told when to come back (`Retry-After`).
 */
const LOCK_MS = 15_000;

interface StoredResponse {
  readonly fingerprint: string;
  readonly status: number;
  readonly headers: [string, string][];
  readonly body: string;
}

/** The key of a request, or null when it sent none. Accepts a bare token or an sf-string (`"…"`). */
export function idempotencyKeyOf(request: Request): string | null {
  const header = request.headers.get('idempotency-key');
  if (header === null) return null;
  const key = header.trim().replace(/^"(.*)"$/, '$1');
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new SwitchboardError('bad_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
      details: [{ field: 'Idempotency-Key', code: 'invalid_format', message: 'Use e.g. a UUID.' }],
    });
  }
  return key;
}

export interface IdempotentRun {
  readonly store: IdempotencyStore;
  /** `rest:<caller>:<path>:<key>` */
  readonly key: string;
  readonly body: Uint8Array;
  readonly now: number;
  /** Runs the request; a create passes `idempotent(respond)` to the domain to store its answer atomically. */
  readonly run: (
    idempotent: <T>(respond: (record: T) => Answer | Response) => CreateOptions<T>,
  ) => Promise<Answer | Response>;
}

/**
 * Runs `run` once per key. A finished key with the same body replays the stored answer (with
 * `Idempotent-Replayed: true`); with another body it is refused with 422; while the first request is
 * still running, a retry gets 409. Only successful answers are kept: after a failure the key is freed
 * so a corrected retry can use it.
 */
export async function runIdempotent(options: IdempotentRun): Promise<Answer | Response> {
  const fingerprint = await bodyTag(options.body);
  const claim = await options.store.claim(options.key, { now: options.now, lockMs: LOCK_MS });
  if (claim.state === 'in_progress') {
    throw new SwitchboardError(
      'conflict',
      'A request with this Idempotency-Key is still being processed; retry in a few seconds.',
      { retryAfter: Math.ceil(LOCK_MS / 1000) },
    );
  }
  if (claim.state === 'completed') {
    const stored = JSON.parse(claim.result ?? 'null') as StoredResponse | null;
    if (!stored || stored.fingerprint !== fingerprint) throw reused();
    return replay(stored, { 'idempotent-replayed': 'true' });
  }
  const expiresAt = options.now + IDEMPOTENCY_TTL_MS;
  let storedWithRecord = false;
  const idempotent = <T>(respond: (record: T) => Answer | Response): CreateOptions<T> => ({
    async within(tx, record) {
      await tx.idempotency.complete(options.key, await stored(respond(record), fingerprint), expiresAt);
      storedWithRecord = true;
    },
  });
  let response: Answer | Response;
  try {
    response = await options.run(idempotent);
  } catch (error) {
    await options.store.release(options.key);
    throw error;
  }
  if (response.status < 200 || response.status > 299) {
    await options.store.release(options.key);
    return response;
  }
  if (storedWithRecord) return response;
  const text = await stored(response, fingerprint);
  await options.store.complete(options.key, text, expiresAt);
  // An answer is still this request's to finish; a Response's body was read to store it.
  return isAnswer(response) ? response : replay(JSON.parse(text) as StoredResponse);
}

/** The answer as kept for replays (never a cookie). */
async function stored(response: Answer | Response, fingerprint: string): Promise<string> {
  const { status } = response;
  if (isAnswer(response)) {
    const headers = Object.entries(response.headers).filter(([name]) => name !== 'set-cookie');
    return JSON.stringify({
      fingerprint,
      status,
      headers,
      body: response.body ?? '',
    } satisfies StoredResponse);
  }
  const body = await response.text();
  const headers = [...response.headers].filter(([name]) => name !== 'set-cookie');
  return JSON.stringify({ fingerprint, status, headers, body } satisfies StoredResponse);
}

/** A stored answer as a fresh one, with `extra` fields. */
function replay(stored: StoredResponse, extra: Record<string, string> = {}): Answer {
  const headers: Record<string, string> = {};
  for (const [name, value] of stored.headers) headers[name] = value;
  return {
    status: stored.status,
    headers: Object.assign(headers, extra),
    body: stored.body === '' && stored.status === 204 ? null : stored.body,
  };
}

function reused(): SwitchboardError {
  return new SwitchboardError(
    'validation_failed',
    'This Idempotency-Key was already used with a different body; use a new key for a new request.',
    { details: [{ field: 'Idempotency-Key', code: 'key_reused', message: 'Key reused with another body.' }] },
  );
}

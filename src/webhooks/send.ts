import pRetry from 'p-retry';
import { parseRetryAfter } from './schedule.js';

/** What one delivery attempt came to. */
export interface AttemptResult {
  readonly ok: boolean;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
  readonly durationMs: number;
  /** The receiver's `Retry-After`, in ms, when it sent one. */
  readonly retryAfterMs: number | null;
}

export interface SendOptions {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  /** Aborts the attempt when the dispatcher stops. */
  readonly signal: AbortSignal;
  /** Quick in-process retries of a refused or reset connection before the attempt counts as failed. */
  readonly burstRetries: number;
  readonly now: () => number;
}

const EXCERPT_BYTES = 1024;

/** Connection-level failures worth a quick second try: nothing reached the receiver's application. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } })?.cause?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

/**
 * One POST with a per-attempt timeout covering the whole exchange. Redirects are not followed (a 3xx is
 * a failed attempt), so a receiver cannot bounce the request to another host.
 */
export async function sendAttempt(options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([timeout, options.signal]);
  const elapsed = (): number => Math.round(performance.now() - started);
  try {
    const response = await pRetry(
      () =>
        options.fetch(options.url, {
          method: 'POST',
          headers: options.headers,
          body: options.body,
          redirect: 'manual',
          signal,
        }),
      {
        retries: options.burstRetries,
        minTimeout: 50,
        maxTimeout: 250,
        signal,
        shouldRetry: ({ error }) => isConnectionFailure(error) && !signal.aborted,
      },
    );
    const responseExcerpt = await excerpt(response);
    return {
      ok: response.status >= 200 && response.status < 300,
      statusCode: response.status,
      error: response.status >= 300 && response.status < 400 ? redirectError(response) : null,
      responseExcerpt,
      durationMs: elapsed(),
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), options.now()),
    };
  } catch (error) {
    const message = timeout.aborted
      ? `No answer within ${options.timeoutMs} ms.`
      : options.signal.aborted
        ? 'Interrupted: the dispatcher stopped.'
        : describe(error);
    return {
      ok: false,
      statusCode: null,
      error: message,
      responseExcerpt: null,
      durationMs: elapsed(),
      retryAfterMs: null,
    };
  }
}

function redirectError(response: Response): string {
  const location = response.headers.get('location');
  return `Redirect not followed${location ? ` (to ${location.slice(0, 200)})` : ''}.`;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return `Network error: ${cause.code}.`;
  return `Network error: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300);
}

/** The first KB of the answer, as text; the rest is not read. */
async function excerpt(response: Response): Promise<string | null> {
  if (!response.body) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body cut short still leaves what was read.
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(size, EXCERPT_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.byteLength - offset);
    bytes.set(part, offset);
    offset += part.byteLength;
    if (offset >= bytes.byteLength) break;
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

import pRetry from 'p-retry';
import { type PostAnswer, type Poster, PostStopped, PostTimeout } from './post.js';
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
  /** The headers sent (the very object passed in, not a copy); null when nothing was sent. */
  readonly requestHeaders: Readonly<Record<string, string>> | null;
  /** The receiver's response headers (bounded); null when it did not answer. */
  readonly responseHeaders: Readonly<Record<string, string>> | null;
}

export interface SendOptions {
  readonly url: string;
  /** The address the host name was checked at; the connection goes there (where the poster can pin). */
  readonly address?: string | undefined;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly poster: Poster;
  readonly timeoutMs: number;
  /** Ends the pauses between quick retries when the dispatcher stops (the poster ends posts in flight). */
  readonly signal: AbortSignal;
  /** Quick in-process retries of a refused or reset connection before the attempt counts as failed. */
  readonly burstRetries: number;
  readonly now: () => number;
}

/** Connection-level failures worth a quick second try: nothing reached the receiver's application. */
function isConnectionFailure(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

/** The system error code of a failed request: on the error itself (node:http) or its cause (fetch). */
function codeOf(error: unknown): string | undefined {
  const failure = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = failure?.cause?.code ?? failure?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * One POST with a per-attempt timeout covering the whole exchange. Redirects are not followed (a 3xx is
 * a failed attempt), so a receiver cannot bounce the request to another host.
 */
export async function sendAttempt(options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const { poster, signal } = options;
  const request = {
    url: options.url,
    address: options.address,
    headers: options.headers,
    body: options.body,
    timeoutMs: options.timeoutMs,
  };
  try {
    let answer: PostAnswer;
    try {
      answer = await poster.post(request);
    } catch (error) {
      // A refused or reset connection reached no application: try again within this attempt, at once
      // (often a kept-alive connection the receiver had closed), then after 50–250 ms.
      if (options.burstRetries === 0 || !isConnectionFailure(error) || signal.aborted) throw error;
      answer = await pRetry(() => poster.post(request), {
        retries: options.burstRetries - 1,
        minTimeout: 50,
        maxTimeout: 250,
        signal,
        shouldRetry: ({ error: again }) => isConnectionFailure(again) && !signal.aborted,
      });
    }
    return {
      ok: answer.status >= 200 && answer.status < 300,
      statusCode: answer.status,
      error: answer.status >= 300 && answer.status < 400 ? redirectError(answer.location) : null,
      responseExcerpt: answer.excerpt,
      durationMs: elapsed(),
      retryAfterMs: parseRetryAfter(answer.retryAfter, options.now()),
      requestHeaders: options.headers,
      responseHeaders: answer.headers,
    };
  } catch (error) {
    const message =
      error instanceof PostTimeout || error instanceof PostStopped
        ? error.message
        : signal.aborted
          ? 'Interrupted: the dispatcher stopped.'
          : describe(error);
    return {
      ok: false,
      statusCode: null,
      error: message,
      responseExcerpt: null,
      durationMs: elapsed(),
      retryAfterMs: null,
      requestHeaders: options.headers,
      responseHeaders: null,
    };
  }
}

function redirectError(location: string | null): string {
  return `Redirect not followed${location ? ` (to ${location.slice(0, 200)})` : ''}.`;
}

function describe(error: unknown): string {
  const code = codeOf(error);
  if (code) return `Network error: ${code}.`;
  return `Network error: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300);
}

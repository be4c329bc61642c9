/**
 * One call to the resource interface: the credential, an `Idempotency-Key` on every create, and
 * retries that are safe. A 429 or 503 (and a keyed create still in progress, 409 with `Retry-After`)
 * is retried after the `Retry-After` the server sent; a connection that failed is retried only when a
 * second try cannot do the work twice (GET, PUT, DELETE, and a create with its key).
 */
import { parseRetryAfter } from '../webhooks/schedule.js';
import { SwitchboardApiError } from './api-error.js';

/** When and how often a call is tried again. */
export interface RetryOptions {
  /** Tries in all, the first included (default 3). */
  readonly attempts?: number;
  /** The longest wait the client sits out; a longer `Retry-After` is thrown to the caller (default 30 s). */
  readonly maxDelayMs?: number;
  /** The first pause when the server named none, doubled on each retry, with jitter (default 250 ms). */
  readonly baseDelayMs?: number;
}

/** How the client reaches the server. */
export interface TransportOptions {
  /** The server's origin and mount, e.g. `https://shop.example` (the version's path is added). */
  readonly baseUrl: string | URL;
  /**
   * An API key or an OAuth access token, sent as `Authorization: Bearer …`; a function is asked on
   * every call, so a token refresher can hand out the current one.
   */
  readonly token?: string | (() => string | Promise<string>);
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** `false` sends each call once. */
  readonly retry?: RetryOptions | false;
  /** Per try, default 30 s. */
  readonly timeoutMs?: number;
  /** Sent on every call (e.g. a `User-Agent`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Makes Idempotency-Keys; default `crypto.randomUUID()`. */
  readonly idempotencyKey?: () => string;
}

/** One call, relative to the version's base. */
export interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A path under the version (`/clients/cli_1`), or a path-absolute link the server gave. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | null | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

/** A successful answer: status, headers and the parsed JSON body (undefined when there is none). */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

const RETRIED_STATUSES = new Set([429, 503]);
const REPEATABLE = new Set(['GET', 'PUT', 'DELETE']);

export type Send = (call: Call) => Promise<Answer>;

/** Makes the function every resource client calls through. */
export function createTransport(options: TransportOptions, basePath: string): Send {
  const base = new URL(options.baseUrl);
  const root = `${base.pathname.replace(/\/+$/, '')}${basePath}`;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const retry = options.retry === false ? { attempts: 1 } : (options.retry ?? {});
  const attempts = Math.max(1, retry.attempts ?? 3);
  const maxDelayMs = retry.maxDelayMs ?? 30_000;
  const baseDelayMs = retry.baseDelayMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const newKey = options.idempotencyKey ?? (() => crypto.randomUUID());
  const backoff = (attempt: number) => baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);

  return async (call) => {
    const url = new URL(call.path.startsWith(root) ? call.path : `${root}${call.path}`, base);
    for (const [name, value] of Object.entries(call.query ?? {}))
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    const key = call.method === 'POST' ? (call.idempotencyKey ?? newKey()) : undefined;
    const token = typeof options.token === 'function' ? await options.token() : options.token;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...options.headers,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(call.body === undefined ? {} : { 'content-type': call.contentType ?? 'application/json' }),
      ...(key ? { 'idempotency-key': key } : {}),
      ...call.headers,
    };
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);

    for (let attempt = 1; ; attempt++) {
      const signal = call.signal
        ? AbortSignal.any([call.signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await doFetch(url, { method: call.method, headers, body, signal });
      } catch (error) {
        const repeatable = REPEATABLE.has(call.method) || key !== undefined;
        if (call.signal?.aborted || !repeatable || attempt >= attempts) throw error;
        await pause(backoff(attempt), call.signal);
        continue;
      }
      if (response.ok || response.status === 304) return answerOf(response);
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
      const busy = response.status === 409 && key !== undefined && retryAfterMs !== null;
      if ((RETRIED_STATUSES.has(response.status) || busy) && attempt < attempts) {
        const wait = retryAfterMs ?? backoff(attempt);
        if (wait <= maxDelayMs) {
          await response.body?.cancel();
          await pause(wait, call.signal);
          continue;
        }
      }
      throw new SwitchboardApiError(response.status, await problemOf(response), retryAfterMs);
    }
  };
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

async function problemOf(response: Response): Promise<Record<string, unknown> | null> {
  try {
    const body: unknown = await response.json();
    return body && typeof body === 'object' ? (body as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

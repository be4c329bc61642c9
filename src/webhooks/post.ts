/**
 * How an attempt reaches the receiver: one POST, answered with the status, the two headers an attempt
 * reads and the first KB of the body. Over the runtime's `node:http` where it has one (found at run
 * time, like the HMAC fast path: no static `node:` import in the core), with keep-alive connections and
 * no WHATWG request, body or response streams per attempt; over `fetch` elsewhere, or when the host
 * passes its own `fetch`.
 */

export interface PostRequest {
  readonly url: string;
  /**
   * Connect to this address instead of resolving the URL's host name again (the address the outbound
   * check approved). `fetch` cannot be told; `node:http` can.
   */
  readonly address?: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** For the whole exchange; the post then fails with {@link PostTimeout}. */
  readonly timeoutMs: number;
}

export interface PostAnswer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly location: string | null;
  /** The first KB of the body as text; the rest is not kept. */
  readonly excerpt: string | null;
  /** The response headers, lower-case names, at most 30 and 4 KiB (see {@link boundedHeaders}). */
  readonly headers: Readonly<Record<string, string>>;
}

export interface Poster {
  post(request: PostRequest): Promise<PostAnswer>;
  /** Fails every post in flight with {@link PostStopped} and closes idle keep-alive connections. */
  stop(): void;
}

/** No answer within the request's `timeoutMs`. */
export class PostTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms.`);
  }
}

/** The poster was stopped while the post was in flight. */
export class PostStopped extends Error {
  constructor() {
    super('Interrupted: the dispatcher stopped.');
  }
}

const EXCERPT_BYTES = 1024;
const MAX_HEADERS = 30;
const MAX_HEADER_CHARS = 4096;

/**
 * The response headers as kept with an attempt: the first 30, names and values together within 4 KiB
 * (a value that would pass it is cut), repeated ones joined with ", ".
 */
export function boundedHeaders(
  entries: Iterable<readonly [string, string | readonly string[] | undefined]>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  let count = 0;
  let size = 0;
  for (const [name, raw] of entries) {
    if (raw === undefined) continue;
    if (count === MAX_HEADERS || size >= MAX_HEADER_CHARS) break;
    const key = name.toLowerCase();
    const value = (typeof raw === 'string' ? raw : raw.join(', ')).replaceAll('\0', '\uFFFD');
    const room = MAX_HEADER_CHARS - size - key.length;
    if (room <= 0) break;
    kept[key] = value.slice(0, room);
    size += key.length + kept[key]!.length;
    count++;
  }
  return kept;
}
/** A longer answer is cut off rather than read to the end, losing its connection. */
const DRAIN_BYTES = 64 * 1024;

/** The native poster where the runtime has `node:http`, else one over `fetch`. */
export function createPoster(doFetch?: typeof fetch): Poster {
  if (doFetch) return fetchPoster(doFetch);
  const native = lookUpHttp();
  return native ? nativePoster(native) : fetchPoster((input, init) => fetch(input, init));
}

/** Redirects are not followed (a 3xx is a failed attempt), so a receiver cannot bounce the request. */
export function fetchPoster(doFetch: typeof fetch): Poster {
  // One AbortController per post, made by the post: workerd builds before September 2026 refuse one in a
  // module's global scope, where the dispatcher (and so this poster) is often made, and tie it to the
  // request that made it, while a Worker's poster posts after many.
  const inFlight = new Set<AbortController>();
  return {
    async post({ url, headers, body, timeoutMs }) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const stopping = new AbortController();
      const stopped = stopping.signal;
      const signal = AbortSignal.any([timeout, stopped]);
      inFlight.add(stopping);
      try {
        const response = await doFetch(url, { method: 'POST', headers, body, redirect: 'manual', signal });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          location: response.headers.get('location'),
          headers: boundedHeaders(response.headers.entries()),
          excerpt: await excerptOf(response),
        };
      } catch (error) {
        if (timeout.aborted) throw new PostTimeout(timeoutMs);
        if (stopped.aborted) throw new PostStopped();
        throw error;
      } finally {
        inFlight.delete(stopping);
      }
    },
    stop() {
      for (const stopping of inFlight) stopping.abort();
    },
  };
}

/** The first KB of the answer, as text; the rest is not read. */
async function excerptOf(response: Response): Promise<string | null> {
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
  return decodeExcerpt(chunks, size);
}

function decodeExcerpt(chunks: readonly Uint8Array[], size: number): string {
  const bytes = new Uint8Array(Math.min(size, EXCERPT_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.byteLength - offset);
    bytes.set(part, offset);
    offset += part.byteLength;
    if (offset >= bytes.byteLength) break;
  }
  // A receiver's NUL bytes become U+FFFD, as malformed UTF-8 does: storage keeps no NUL (storable-text.ts).
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replaceAll('\0', '\uFFFD');
}

// The few parts of node:http / node:https used here.
interface NativeHttp {
  readonly http: NativeModule;
  readonly https: NativeModule;
}
interface NativeModule {
  Agent: new (options: { keepAlive: boolean; scheduling?: 'lifo' | 'fifo' }) => NativeAgent;
  request(
    url: URL,
    options: { method: string; headers: Record<string, string>; agent: NativeAgent; lookup?: Lookup },
    onResponse: (response: NativeResponse) => void,
  ): NativeRequest;
}
/** node:net's lookup hook: answers with the address given instead of asking DNS. */
type Lookup = (hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => void;

function pinnedLookup(address: string): Lookup {
  const family = address.includes(':') ? 6 : 4;
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

interface NativeAgent {
  destroy(): void;
}
interface NativeRequest {
  on(event: 'error', listener: (error: Error) => void): NativeRequest;
  write(body: Uint8Array): void;
  end(): void;
  destroy(error?: Error): void;
}
interface NativeResponse {
  readonly statusCode?: number;
  readonly headers: Record<string, string | string[] | undefined>;
  on(event: 'data', listener: (chunk: Uint8Array) => void): NativeResponse;
  on(event: 'end' | 'close', listener: () => void): NativeResponse;
  on(event: 'error', listener: (error: Error) => void): NativeResponse;
  destroy(): void;
}

function lookUpHttp(): NativeHttp | undefined {
  try {
    const process = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
    const http = process?.getBuiltinModule?.('node:http') as NativeModule | undefined;
    const https = process?.getBuiltinModule?.('node:https') as NativeModule | undefined;
    return typeof http?.request === 'function' && typeof https?.request === 'function'
      ? { http, https }
      : undefined;
  } catch {
    return undefined;
  }
}

const utf8 = new TextEncoder();

function nativePoster({ http, https }: NativeHttp): Poster {
  // LIFO: the most recently used connection is reused, so idle ones age out under light load.
  const agents = {
    'http:': new http.Agent({ keepAlive: true, scheduling: 'lifo' }),
    'https:': new https.Agent({ keepAlive: true, scheduling: 'lifo' }),
  };
  /** Posts in flight, so that stop() can end them: one timer each, no AbortSignal per attempt. */
  const inFlight = new Set<(error: Error) => void>();
  return {
    post({ url, address, headers, body, timeoutMs }) {
      return new Promise((resolve, reject) => {
        const target = new URL(url);
        const secure = target.protocol === 'https:';
        const bytes = utf8.encode(body);
        let settled = false;
        /** Set once the answer began: then a timeout or stop keeps what was read, like a cut-off body. */
        let answerSoFar: (() => void) | undefined;
        const settle = (): boolean => {
          if (settled) return false;
          settled = true;
          clearTimeout(timer);
          inFlight.delete(fail);
          return true;
        };
        const fail = (error: Error): void => {
          if (answerSoFar) answerSoFar();
          else if (settle()) reject(error);
          request.destroy(error);
        };
        const request = (secure ? https : http).request(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'content-length': String(bytes.byteLength) },
            agent: secure ? agents['https:'] : agents['http:'],
            ...(address ? { lookup: pinnedLookup(address) } : {}),
          },
          (response) => {
            const chunks: Uint8Array[] = [];
            let size = 0;
            const answer = (): void => {
              if (!settle()) return;
              const header = (name: string): string | null => {
                const value = response.headers[name];
                return (Array.isArray(value) ? value[0] : value) ?? null;
              };
              resolve({
                status: response.statusCode ?? 0,
                retryAfter: header('retry-after'),
                location: header('location'),
                headers: boundedHeaders(Object.entries(response.headers)),
                excerpt: decodeExcerpt(chunks, size),
              });
            };
            answerSoFar = answer;
            response.on('data', (chunk) => {
              if (size < EXCERPT_BYTES) chunks.push(chunk);
              size += chunk.byteLength;
              // Read to the end keeps the connection for the next attempt; a long answer is cut off.
              if (size > DRAIN_BYTES) {
                answer();
                response.destroy();
              }
            });
            response.on('end', answer);
            // A body cut short (reset, timeout) still leaves what was read.
            response.on('error', answer);
            response.on('close', answer);
          },
        );
        const timer = setTimeout(() => fail(new PostTimeout(timeoutMs)), timeoutMs);
        inFlight.add(fail);
        request.on('error', (error) => {
          if (settle()) reject(error);
        });
        // Not `end(bytes)`: workerd 1.20250917's node:http sends such a body twice.
        request.write(bytes);
        request.end();
      });
    },
    stop() {
      for (const fail of [...inFlight]) fail(new PostStopped());
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

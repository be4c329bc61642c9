/** Cross-origin access (the Fetch standard's CORS protocol) for browser-based chat widgets. */

/** Where the finishing steps write headers: a `Headers`, or an answer's record. */
export type HeaderTarget = Pick<Headers, 'has' | 'set' | 'append'>;

/** Which browser origins may call, whether with credentials, and how long preflight answers are cached. */
export interface CorsOptions {
  /** Allowed origins: a list (`https://chat.example.com`), `'*'` for any, or a predicate. */
  readonly origins: readonly string[] | '*' | ((origin: string) => boolean);
  /** Let browsers send cookies/credentials; never combined with `'*'` (the origin is echoed instead). */
  readonly credentials?: boolean;
  /** How long a preflight answer may be cached, in seconds (default 600). */
  readonly maxAgeSeconds?: number;
}

const ALLOW_HEADERS = 'authorization, content-type, if-match, if-none-match, idempotency-key';
const EXPOSE_HEADERS = 'etag, location, link, deprecation, sunset, idempotent-replayed, www-authenticate';

function allowed(cors: CorsOptions, origin: string): boolean {
  if (cors.origins === '*') return true;
  if (typeof cors.origins === 'function') return cors.origins(origin);
  return cors.origins.includes(origin);
}

/** Whether a request is a CORS preflight (an OPTIONS request asking about another method). */
export function isPreflight(request: Request): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.has('origin') &&
    request.headers.has('access-control-request-method')
  );
}

/** The answer to a preflight for a path that serves `methods`. */
export function preflightResponse(request: Request, cors: CorsOptions, methods: readonly string[]): Response {
  const response = new Response(null, { status: 204 });
  applyCors(request, response.headers, cors);
  if (response.headers.has('access-control-allow-origin')) {
    response.headers.set('access-control-allow-methods', methods.join(', '));
    response.headers.set('access-control-allow-headers', ALLOW_HEADERS);
    response.headers.set('access-control-max-age', String(cors.maxAgeSeconds ?? 600));
  }
  return response;
}

/** Adds the CORS headers of an allowed origin to an answer (and `Vary: Origin` for caches). */
export function applyCors(request: Request, headers: HeaderTarget, cors: CorsOptions): void {
  const origin = request.headers.get('origin');
  headers.append('vary', 'Origin');
  if (origin === null || !allowed(cors, origin)) return;
  const echo = cors.origins !== '*' || cors.credentials;
  headers.set('access-control-allow-origin', echo ? origin : '*');
  if (cors.credentials) headers.set('access-control-allow-credentials', 'true');
  headers.set('access-control-expose-headers', EXPOSE_HEADERS);
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { SwitchboardError } from '../core/errors.js';
import type { Logger } from '../core/runtime.js';
import { silentLogger } from '../core/runtime.js';
import { problemResponse } from '../http/problem.js';
import { type ConnectionInfo, RequestContext } from '../http/request-context.js';
import { webRequestOf } from './convert.js';
import { installLightResponse } from './light-response.js';
import { installRequestOfViews, originOf, requestView } from './request-view.js';
import { writeResponse } from './write-response.js';

/** Options of {@link createRequestListener}. */
export interface RequestListenerOptions {
  readonly logger?: Logger;
  /** The host (and port) a request without a `Host` header is taken to be for. */
  readonly hostname?: string;
  /**
   * Hand handlers a view of node:http's request and make the global `Response` a light one that holds
   * a text answer's status, header record and body, each building undici's only when a handler reads
   * more of it (and the global `Request` one that accepts a view as its input). Default true:
   * constructing undici's objects costs more than everything else on a fast route. Handlers see no
   * difference; false gives them undici's own.
   */
  readonly overrideGlobals?: boolean;
}

/** A node:http request listener, to pass to `createServer` or mount in Express or Fastify. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * A node:http request listener that serves a Web fetch handler: the request is a view of node:http's
 * (undici's `Request` is built only for a body stream, a signal or `clone()`), a text answer is written
 * in one `end()` with `content-length`, streams with back-pressure, and the request's signal aborts
 * when the client goes away. Mount it in
 * node:http, Express or Fastify: when a body parser mounted ahead has read the body, it is rebuilt
 * from what the parser left (see `toWebRequest`). The handler gets the peer's address as its second
 * argument (`clientAddress`), for the budgets of callers without credentials.
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(createRequestListener(switchboard.fetch)).listen(4000);
 */
export function createRequestListener(
  fetch: (request: Request, info: ConnectionInfo) => Promise<Response>,
  options: RequestListenerOptions = {},
): RequestListener {
  const logger = options.logger ?? silentLogger;
  const light = options.overrideGlobals ?? true;
  if (light) {
    installLightResponse();
    installRequestOfViews();
  }
  return async (incoming, outgoing) => {
    const url = urlOf(incoming, options.hostname);
    let response: Response;
    if (url === undefined) {
      response = problemResponse(
        new SwitchboardError('bad_request', 'The request target or Host header is not valid.'),
      );
    } else {
      const request = light
        ? requestView(incoming, outgoing, url)
        : webRequestOf(incoming, outgoing, originOf(url));
      try {
        // The request's context starts here, with the peer's address (a Web Request has none): the
        // handlers below take it as it is, so a request makes one.
        response = await fetch(request, new RequestContext(request, incoming.socket?.remoteAddress));
      } catch (error) {
        logger.log('error', 'fetch handler threw', { error: String(error) });
        // The one problem renderer: a generic `internal`, never the error's own words.
        response = problemResponse(error);
      }
    }
    // A light response is written at once: awaiting its `undefined` would cost one more turn.
    const streaming = writeResponse(response, outgoing);
    if (streaming) await streaming;
  };
}

/** A Host: a name, an IPv4 address or a bracketed IPv6 one, and perhaps a port. */
const HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The request's full URL from its target and `Host` (or `hostname` when it sent none), or undefined
 * when they make none. A target with dot segments or backslashes is resolved as a browser's URL would
 * be, so every runtime routes the same path.
 */
function urlOf(incoming: IncomingMessage, hostname: string | undefined): string | undefined {
  const target = incoming.url ?? '/';
  const host = incoming.headers.host ?? hostname;
  if (host === undefined || !HOST.test(host)) return undefined;
  if (target[0] === '/' && !/\/\.|\\|%2e/i.test(target)) return `http://${host}${target}`;
  try {
    // Absolute form (a proxy's), or a path to normalise: the URL parser's result, on our origin.
    const parsed = new URL(target, `http://${host}`);
    if (target[0] !== '/' && parsed.host !== host) return undefined;
    return `http://${host}${parsed.pathname}${parsed.search}`;
  } catch {
    return undefined;
  }
}

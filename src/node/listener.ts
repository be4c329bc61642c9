import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import { SwitchboardError } from '../core/errors.js';
import type { Logger } from '../core/runtime.js';
import { silentLogger } from '../core/runtime.js';
import { problemResponse } from '../http/problem.js';
import { type ConnectionInfo, RequestContext } from '../http/request-context.js';
import { bodyWasRead } from './consumed-body.js';
import { toWebRequest } from './convert.js';

/** Options of {@link createRequestListener}. */
export interface RequestListenerOptions {
  readonly logger?: Logger;
  /** The host (and port) a request without a `Host` header is taken to be for. */
  readonly hostname?: string;
  /**
   * Replace the global `Request` and `Response` with @hono/node-server's lightweight ones, which build
   * undici's objects only when a handler reads a body or signal. Default true: constructing undici's
   * `Request` and `Response` costs more than everything else on a fast route. Handlers see no difference.
   */
  readonly overrideGlobals?: boolean;
}

/** A node:http request listener, to pass to `createServer` or mount in Express or Fastify. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * A node:http request listener that serves a Web fetch handler: the request is built lazily, string and
 * byte bodies are written in one `end()` with `content-length`, streams with back-pressure, and the
 * request's signal aborts when the client goes away. Mount it in node:http, Express or Fastify: when a
 * body parser mounted ahead has read the body, it is rebuilt from what the parser left (see
 * {@link toWebRequest}). The handler gets the peer's address as its second argument (`clientAddress`),
 * for the budgets of callers without credentials.
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
  return getRequestListener(
    (request, env) => {
      const { incoming, outgoing } = (env ?? {}) as { incoming?: IncomingMessage; outgoing?: ServerResponse };
      // A framework's body parser read the stream before us (express.json() ahead of the mount): the
      // body is rebuilt from what it left, as toWebRequest does.
      const web =
        incoming && outgoing && bodyWasRead(incoming)
          ? toWebRequest(incoming, outgoing, new URL(request.url).origin)
          : request;
      // The request's context starts here, with the peer's address (a Web Request has none): the
      // handlers below take it as it is, so a request makes one.
      return fetch(web, new RequestContext(web, incoming?.socket?.remoteAddress));
    },
    {
      overrideGlobalObjects: options.overrideGlobals ?? true,
      ...(options.hostname ? { hostname: options.hostname } : {}),
      errorHandler(error) {
        // Thrown before the handler ran: a request line or Host header that is not a valid URL.
        if (error instanceof RequestError)
          return problemResponse(
            new SwitchboardError('bad_request', 'The request target or Host header is not valid.'),
          );
        logger.log('error', 'fetch handler threw', { error: String(error) });
        // The one problem renderer: a generic `internal`, never the error's own words.
        return problemResponse(error);
      },
    },
  );
}

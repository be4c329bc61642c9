/**
 * The per-request context (Hono's `Context` is the model): made once where a request enters, passed
 * down explicitly, and holding what a Web `Request` does not carry — the peer's address, which the
 * runtime adapter gives as the fetch handler's second argument, and the route template and interface
 * that served the request, which routers note for telemetry. No module-level map keeps any of it.
 */

/**
 * What a runtime knows of a request beyond the Web `Request`: the second argument of every Switchboard
 * fetch handler, in the place of Deno's `info`, Bun's `server` and a Worker's `env`. The Node adapter
 * passes it; on Deno and Bun pass `{ clientAddress }` yourself. Any runtime's own second argument is
 * accepted too (so `Deno.serve(switchboard.fetch)` still type-checks): only a string `clientAddress` is
 * read. Without one, callers without credentials share the budgets of the address `unknown` (unless
 * `trustedProxies` lets `X-Forwarded-For` name them).
 *
 * @example
 * // Deno
 * Deno.serve((request, info) => switchboard.fetch(request, { clientAddress: info.remoteAddr.hostname }));
 * // Bun
 * Bun.serve({ fetch: (request, server) => switchboard.fetch(request, { clientAddress: server.requestIP(request)?.address }) });
 */
export type ConnectionInfo = object & {
  /** The peer's network address (the socket's remote address), for the budgets of callers without credentials. */
  readonly clientAddress?: string | undefined;
};

/**
 * One request's context. The runtime adapters and the outermost handler make it; every handler below
 * takes the one it is given ({@link requestContext}), so a request has one, however deep it is routed.
 * A class: one small object of one shape per request.
 */
export class RequestContext {
  /** The route template that served the request (`/api/v1/clients/{id}`): the last router to note one wins. */
  route: string | undefined = undefined;
  /** The interface that served it, as metrics label it (`rest`, `graphql`, `oauth`…). */
  interface: string | undefined = undefined;
  /**
   * The URL of the protected resource metadata (RFC 9728) of the API serving the request, for its 401
   * challenges to name, so an agent finds the authorization server. Set by `createSwitchboard` for its
   * APIs when it runs one; a function, so that only a refusal pays for the URL.
   */
  resourceMetadata: ((request: Request) => string) | undefined = undefined;

  constructor(
    readonly request: Request,
    readonly clientAddress: string | undefined,
  ) {}
}

/**
 * The context of `request`: `info` itself when an outer handler made it for this request, else a new
 * one with the address `info` gives (a host's `{ clientAddress }`, or nothing).
 */
export function requestContext(request: Request, info?: ConnectionInfo): RequestContext {
  if (info instanceof RequestContext && info.request === request) return info;
  const address = info?.clientAddress;
  return new RequestContext(request, typeof address === 'string' ? address : undefined);
}

/** What budgets read of a request: its headers (`X-Forwarded-For`) and the peer's address. */
export type Requester = Pick<RequestContext, 'request' | 'clientAddress'>;

/**
 * Route definitions → one fetch handler over a route table, with the conventions every answer keeps
 * (authentication, scopes, validated input, problem+json, ETags, idempotency, CORS, deprecation) and
 * the OpenAPI document and reference page of its routes. REST's resources, webhook management and
 * OAuth client management are all served this way.
 */
import type { Authenticate } from '../core/auth.js';
import type { Runtime } from '../core/runtime.js';
import type { Storage } from '../core/storage/index.js';
import { type LookOptions, resolveLook } from '../internal/look/index.js';
import type { CorsOptions } from './cors.js';
import type { DeprecationNotice } from './deprecation.js';
import { buildOpenApiDocument, type OpenApiDocument, type OpenApiInfo, type RouteSet } from './openapi.js';
import type { PageLimits } from './pagination.js';
import { createPipeline, type Reply, type Served } from './pipeline.js';
import type { RateLimiter } from './rate-limit.js';
import { type ConnectionInfo, requestContext } from './request-context.js';
import type { AnyRoute } from './route.js';
import { createRouteTable, routePathOf } from './route-table.js';

export interface RestLimits extends PageLimits {
  /** Largest request body accepted, in bytes (413 above). Default 64 KiB. */
  readonly maxBodyBytes?: number;
}

/** A fetch handler of routes, with the OpenAPI document it serves. */
export interface RestHandler {
  /** Serves a request; `info` gives the peer's address (see {@link ConnectionInfo}). */
  (request: Request, info?: ConnectionInfo): Promise<Response>;
  readonly basePath: string;
  readonly openapi: OpenApiDocument;
  /** The routes it serves, e.g. to list them in another handler set's document as well. */
  readonly routes: readonly AnyRoute[];
}

/**
 * What a set of routes reads from the runtime: the storage that keeps the answers of `Idempotency-Key`
 * POSTs, the clock and the logger.
 */
export interface RouteRuntime extends Pick<Runtime, 'clock' | 'logger'> {
  /** The reference page's look (a look already resolved, as OAuth's, is one too). */
  readonly look?: LookOptions | undefined;
  readonly storage: Pick<Storage, 'idempotency'>;
}

/** The settings of a set of routes: where it is mounted and how it answers. */
export interface RouteHandlerConfig {
  /** Where the set is mounted; route paths are relative to it. Default `/api/v1`. */
  readonly basePath?: string;
  /** The API version the set speaks, given to its routes (default 1). */
  readonly apiVersion?: number;
  readonly limits?: RestLimits;
  /** CORS for browser callers; off when omitted. */
  readonly cors?: CorsOptions | false;
  /** Marks this version deprecated: every answer carries Deprecation, Sunset and a successor Link. */
  readonly deprecation?: DeprecationNotice;
  readonly info?: OpenApiInfo;
}

/** Everything a set of routes needs to be served besides the runtime; see {@link createRouteHandler}. */
export interface RouteHandlerOptions extends RouteHandlerConfig {
  readonly routes: readonly AnyRoute[];
  readonly authenticate: Authenticate;
  /**
   * Route sets served on mounts of their own, listed in this set's document under their full path
   * (every API version's document lists OAuth administration on `/oauth`).
   */
  readonly elsewhere?: readonly RouteSet[];
  /**
   * Budgets per caller, reads (GET) and writes apart: over budget is 429 with `Retry-After`, and every
   * answer carries the RateLimit fields. Off when omitted.
   */
  readonly rateLimit?: RateLimiter;
}

/**
 * Serves any list of route definitions with the same conventions as the built-in ones: the building
 * block for admin routes of other modules that want their own mount.
 *
 * @example
 * const admin = createRouteHandler(runtime, { routes: webhookEndpointRoutes, authenticate, basePath: '/api/v1' });
 */
export function createRouteHandler(runtime: RouteRuntime, options: RouteHandlerOptions): RestHandler {
  const basePath = (options.basePath ?? '/api/v1').replace(/\/+$/, '');
  const openapi = buildOpenApiDocument(options.routes, {
    basePath,
    info: options.info,
    deprecated: options.deprecation !== undefined,
    rateLimited: options.rateLimit !== undefined,
    ...(options.elsewhere ? { elsewhere: options.elsewhere } : {}),
  });
  const pipeline = createPipeline({
    ...options,
    basePath,
    storage: runtime.storage,
    clock: runtime.clock,
    logger: runtime.logger,
    openapi,
    look: resolveLook(runtime.look),
  });
  const table = createRouteTable<Served>();
  for (const route of options.routes) {
    table.add(route.method, route.path, route);
    if (route.method === 'GET') table.add('HEAD', route.path, route);
  }
  table.add('GET', '/openapi.json', pipeline.openapiJson);
  table.add('GET', '/docs', pipeline.docsPage);
  table.add('GET', '/docs/{file}', pipeline.docsFile);

  const handler = async (request: Request, info?: ConnectionInfo): Promise<Response> => {
    let response: Reply;
    try {
      const context = requestContext(request, info);
      const path = routePathOf(request.url, basePath);
      const match = path === undefined ? undefined : table.match(request.method, path);
      response = match
        ? await pipeline.serve(match.entry, context, match.params)
        : await pipeline.unrouted(context, path === undefined ? [] : table.methodsAt(path));
    } catch (error) {
      response = pipeline.fail(error, request);
    }
    return pipeline.finish(request, response);
  };
  return Object.assign(handler, { basePath, openapi, routes: options.routes });
}

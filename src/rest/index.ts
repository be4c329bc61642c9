/**
 * `switchboard-kit/rest`: the resource-oriented interface (spec section 4.2) as Web fetch handlers over
 * a compiled route table. Routes are data; the same definitions serve requests and generate the OpenAPI 3.1
 * document (`<basePath>/openapi.json`) and the reference page (`<basePath>/docs`).
 *
 * @example
 * import { createRestHandler } from 'switchboard-kit/rest';
 * const rest = createRestHandler(runtime, { domain, authenticate, basePath: '/api/v1' });
 * const response = await rest(new Request('http://localhost/api/v1/clients'));
 *
 * @packageDocumentation
 */

export { ifMatch } from '../http/conditional.js';
export type { CorsOptions } from '../http/cors.js';
export type { DeprecationNotice } from '../http/deprecation.js';
export { buildOpenApiDocument, type OpenApiDocument, type OpenApiInfo } from '../http/openapi.js';
export {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type PageLimits,
  type PageQuerySchema,
  pageQuery,
  paginated,
  rangeOf,
} from '../http/pagination.js';
export { type Answer, created, type JsonOptions, json, noContent } from '../http/responses.js';
export {
  type AnyRoute,
  defineRoute,
  type HttpMethod,
  type RouteBody,
  type RouteContext,
  type RouteDefinition,
  type RouteResponse,
} from '../http/route.js';
export {
  createRouteHandler,
  type RestHandler,
  type RestLimits,
  type RouteHandlerConfig,
  type RouteHandlerOptions,
  type RouteRuntime,
} from '../http/route-handler.js';
export { ProblemSchema, pageOf } from '../http/schemas.js';
export { createRestHandler, type RestHandlerOptions } from './handler.js';
export { type ApiVersion, type ResourceRouteOptions, resourceRoutes } from './routes/index.js';
export {
  createRestVersions,
  DEFAULT_VERSIONS,
  type MountedRouteSets,
  type RestConfig,
  type RestMount,
  type RestSharedOptions,
  type RestVersion,
} from './versions.js';

/**
 * `switchboard-kit/rest`: the resource-oriented interface (spec section 4.2) as Web fetch handlers over
 * a compiled route table. Routes are data; the same definitions serve requests and generate the OpenAPI 3.1
 * document (`<basePath>/openapi.json`) and the reference page (`<basePath>/docs`).
 *
 * @example
 * import { createRestHandler } from 'switchboard-kit/rest';
 * const rest = createRestHandler({ domain, storage, authenticate, basePath: '/api/v1' });
 * const response = await rest(new Request('http://localhost/api/v1/clients'));
 *
 * @packageDocumentation
 */

export { ifMatch } from './conditional.js';
export type { CorsOptions } from './cors.js';
export type { DeprecationNotice } from './deprecation.js';
export {
  createRestHandler,
  createRouteHandler,
  type RestHandler,
  type RestHandlerOptions,
  type RestLimits,
  type RouteHandlerOptions,
} from './handler.js';
export { buildOpenApiDocument, type OpenApiDocument, type OpenApiInfo } from './openapi.js';
export {
  DEFAULT_PAGE_SIZE,
  linkHeader,
  MAX_PAGE_SIZE,
  PAGE_HEADERS,
  type PageLimits,
  type PageQuerySchema,
  pageQuery,
  paginated,
  rangeOf,
} from './pagination.js';
export { renderProblem } from './problems.js';
export { created, type JsonOptions, json, noContent } from './responses.js';
export {
  type AnyRoute,
  defineRoute,
  type HttpMethod,
  type RouteBody,
  type RouteContext,
  type RouteDefinition,
  type RouteResponse,
} from './route.js';
export { type ApiVersion, type ResourceRouteOptions, resourceRoutes } from './routes/index.js';
export {
  ClientSchema,
  MessageSchema,
  MoneySchema,
  OrderV1Schema,
  OrderV2Schema,
  ProblemSchema,
  pageOf,
} from './schemas.js';
export {
  createRestVersions,
  DEFAULT_VERSIONS,
  type MountedRouteSets,
  type RestMount,
  type RestOptions,
  type RestVersion,
} from './versions.js';

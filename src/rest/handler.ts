/**
 * The resource interface of spec section 4.2: the built-in resource routes (clients, orders, messages),
 * served by the shared route layer (src/http).
 */
import { resolveTrust } from '../core/auth.js';
import type { Domain } from '../core/domain/index.js';
import { servedScopes } from '../core/resources/scopes.js';
import type { AnyRoute } from '../http/route.js';
import {
  createRouteHandler,
  type RestHandler,
  type RouteHandlerOptions,
  type RouteRuntime,
} from '../http/route-handler.js';
import { type ApiVersion, resourceRoutes } from './routes/index.js';

/**
 * Options of {@link createRestHandler}: the domain, the API version, routes to add, and the route
 * layer's (`authenticate`, limits, …).
 */
export interface RestHandlerOptions extends Omit<RouteHandlerOptions, 'routes'> {
  readonly domain: Domain;
  /** Which representation the built-in routes speak (default 1). v2: an order's `total` is `{ amount, currency }`. */
  readonly apiVersion?: ApiVersion;
  /** More routes served and documented beside the built-in ones (e.g. admin routes of other modules). */
  readonly routes?: readonly AnyRoute[];
}

/**
 * The resource interface of spec section 4.2 as one fetch handler, with its OpenAPI document at
 * `<basePath>/openapi.json` and a readable reference at `<basePath>/docs`. The runtime's storage keeps
 * the answers of `Idempotency-Key` POSTs.
 *
 * @example
 * const rest = createRestHandler(runtime, { domain, authenticate, basePath: '/api/v1' });
 * Deno.serve(rest);
 */
export function createRestHandler(runtime: RouteRuntime, options: RestHandlerOptions): RestHandler {
  const builtIn = resourceRoutes({
    domain: options.domain,
    apiVersion: options.apiVersion,
    limits: options.limits,
  });
  const routes = [...builtIn, ...(options.routes ?? [])];
  // A trusted caller holds every scope served here: each resource's (a host's too) and each route's.
  const scopes = new Set(servedScopes(options.domain.resources));
  for (const { scope } of routes) if (scope && scope !== 'public') scopes.add(scope);
  return createRouteHandler(runtime, {
    ...options,
    authenticate: resolveTrust(options.authenticate, scopes),
    routes,
  });
}

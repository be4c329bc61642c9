import type { AnyRoute } from '../../http/route.js';
import type { ResourceRouteOptions } from './context.js';
import { declaredRoutes } from './declared.js';

export type { ApiVersion, ResourceRouteOptions } from './context.js';

/**
 * The resource routes of spec section 4.2: those of every resource, the built-in ones (clients,
 * orders, conversations, messages, bookings) and the host's, each from its declaration.
 *
 * @example
 * const routes = resourceRoutes({ domain, apiVersion: 2 });
 */
export function resourceRoutes(options: ResourceRouteOptions): AnyRoute[] {
  return Object.values(options.domain.resources).flatMap((service) => declaredRoutes(service, options));
}

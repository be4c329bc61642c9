import type { AnyRoute } from '../../http/route.js';
import { clientRoutes } from './clients.js';
import type { ResourceRouteOptions } from './context.js';
import { declaredRoutes } from './declared.js';
import { messageRoutes } from './messages.js';
import { orderRoutes } from './orders.js';

export type { ApiVersion, ResourceRouteOptions } from './context.js';

/**
 * The resource routes of spec section 4.2: clients, orders, messages, and every declared resource.
 *
 * @example
 * const routes = resourceRoutes({ domain, apiVersion: 2 });
 */
export function resourceRoutes(options: ResourceRouteOptions): AnyRoute[] {
  return [
    ...clientRoutes(options),
    ...orderRoutes(options),
    ...messageRoutes(options),
    ...Object.values(options.domain.resources).flatMap((service) => declaredRoutes(service, options)),
  ];
}

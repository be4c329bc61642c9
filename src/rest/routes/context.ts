import type { Domain } from '../../core/domain/index.js';
import type { PageLimits } from '../../http/pagination.js';

/** Which representation the routes speak: a resource may declare how a later version shows it (v2: an order's `total` is money). */
export type ApiVersion = 1 | 2;

/** What the built-in route sets are made from. */
export interface ResourceRouteOptions {
  readonly domain: Domain;
  readonly apiVersion?: ApiVersion;
  readonly limits?: PageLimits;
}

import { canSeeClient, type Principal } from '../../core/auth.js';
import type { Domain } from '../../core/domain/index.js';
import { SwitchboardError } from '../../core/errors.js';
import type { Order } from '../../core/records.js';
import type { PageLimits } from '../../http/pagination.js';

/** Which representation the built-in routes speak. v2 differs in one way: an order's `total` is money. */
export type ApiVersion = 1 | 2;

/** What the built-in route sets are made from. */
export interface ResourceRouteOptions {
  readonly domain: Domain;
  readonly apiVersion?: ApiVersion;
  readonly limits?: PageLimits;
}

/** The wire form of an order in a given API version. */
export function presentOrder(order: Order, version: ApiVersion): unknown {
  if (version === 1) return order;
  const { currency, total, ...rest } = order;
  return { ...rest, total: { amount: total, currency } };
}

/**
 * Stops a user principal at other users' records with the same 404 an absent record gets, so ids of
 * other people's records cannot be probed.
 */
export function assertVisible(principal: Principal, clientId: string, kind = 'client', id = clientId): void {
  if (!canSeeClient(principal, clientId)) {
    throw new SwitchboardError('not_found', `No ${kind} with id "${id}".`);
  }
}

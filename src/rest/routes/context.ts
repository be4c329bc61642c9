import { canSeeClient, type Principal } from '../../core/auth.js';
import type { Domain } from '../../core/domain/index.js';
import { SwitchboardError } from '../../core/errors.js';
import type { PageLimits } from '../../http/pagination.js';

/** Which representation the routes speak: a resource may declare how a later version shows it (v2: an order's `total` is money). */
export type ApiVersion = 1 | 2;

/** What the built-in route sets are made from. */
export interface ResourceRouteOptions {
  readonly domain: Domain;
  readonly apiVersion?: ApiVersion;
  readonly limits?: PageLimits;
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

/**
 * The scope catalogue of resources: every scope they declare, in words, read from the declarations so
 * a resource added is grantable, shown on the consent page and held by a trusted caller with no list
 * to keep.
 */
import type { Scope, ScopeCatalogue } from '../auth.js';
import { BUILT_IN_RESOURCES, CORE_RESOURCES } from './built-ins/index.js';
import type { Resource } from './define.js';
import type { ResourceService } from './service.js';

/**
 * The read and write scope of each resource, in its words. Resources sharing a scope (a return and
 * the notes on it) are described by the first that declares it.
 *
 * @example
 * scopeCatalogue([clients, returns]);
 * // { 'crm.clients.read': 'See clients: …', …, 'shop.returns.write': 'Create, change and delete returns' }
 */
export function scopeCatalogue(resources: readonly Resource[]): ScopeCatalogue {
  const catalogue: Record<string, string> = {};
  for (const { scopes } of resources) {
    catalogue[scopes.read] ??= scopes.describe.read;
    catalogue[scopes.write] ??= scopes.describe.write;
  }
  return catalogue;
}

/**
 * Every scope the services of a domain check (`domain.resources`): what a trusted caller of an
 * interface over it holds.
 */
export function servedScopes(services: Readonly<Record<string, ResourceService>>): Scope[] {
  return Object.keys(scopeCatalogue(Object.values(services).map((s) => s.resource)));
}

/** The scopes of the built-in resources (the core records and bookings). */
export const BUILT_IN_SCOPES: ScopeCatalogue = scopeCatalogue([...CORE_RESOURCES, ...BUILT_IN_RESOURCES]);

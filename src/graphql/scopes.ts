import type { Scope } from '../core/auth.js';
import { CORE_RESOURCES, clients } from '../core/resources/built-ins/index.js';
import { resourceScopes } from './resources.js';

/**
 * The scope each field of the core schema needs, in one place: `Type.field` → scope, derived from
 * the core resources' declarations. `createSchema` wraps the resolver of every listed field with a
 * `requireScope` check, so a resolver cannot forget it. Fields a host adds can be listed through
 * `createSchema({ scopes })`.
 *
 * @example
 * createSchema({ typeDefs, resolvers, scopes: { 'Query.invoices': 'billing.invoices.read' } });
 */
export const FIELD_SCOPES: Readonly<Record<string, Scope>> = Object.assign(
  { 'Mutation.importClients': clients.scopes.write },
  ...CORE_RESOURCES.map(resourceScopes),
);

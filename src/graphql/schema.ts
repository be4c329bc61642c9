import { makeExecutableSchema } from '@graphql-tools/schema';
import { type GraphQLFieldResolver, GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { requireScope, type Scope } from '../core/auth.js';
import { CORE_RESOURCES } from '../core/resources/built-ins/index.js';
import { guardArguments } from './arguments.js';
import type { GraphQLContext } from './context.js';
import type { CreateSchemaOptions } from './extension.js';
import { resolvers as baseResolvers } from './resolvers.js';
import { resourceSchema } from './resources.js';
import { FIELD_SCOPES } from './scopes.js';
import { typeDefs as baseTypeDefs } from './type-defs.js';

export type { CreateSchemaOptions } from './extension.js';

/**
 * The Switchboard schema (the core records, from their declarations, and the CSV import of clients),
 * optionally extended by the host: one extension, or several side by side. Extensions may only add:
 * the built-in types and fields stay as they are (spec section 9, "add fields, never break").
 *
 * @example
 * const schema = createSchema({
 *   typeDefs: 'extend type Client { loyaltyPoints: Int! }',
 *   resolvers: { Client: { loyaltyPoints: (client) => points.of(client.id) } },
 *   scopes: { 'Client.loyaltyPoints': 'crm.clients.read' },
 * });
 */
export function createSchema(
  extensions: CreateSchemaOptions | readonly CreateSchemaOptions[] = {},
): GraphQLSchema {
  const parts = [core, ...list(extensions)];
  const schema = makeExecutableSchema<GraphQLContext>({
    typeDefs: [baseTypeDefs, ...parts.flatMap((p) => list(p.typeDefs))],
    resolvers: [baseResolvers, ...parts.flatMap((p) => list(p.resolvers))],
  });
  // Arguments are checked inside the scope check: a caller without the scope learns nothing more.
  guardArguments(schema);
  guardScopes(schema, Object.assign({ ...FIELD_SCOPES }, ...parts.map((p) => p.scopes)));
  return schema;
}

/** The core records (clients, orders, conversations, messages), made from their declarations. */
const core: CreateSchemaOptions = { ...resourceSchema(CORE_RESOURCES), scopes: {} };

/** Wraps each listed field's resolver (and subscriber) with a `requireScope` check. */
function guardScopes(schema: GraphQLSchema, scopes: Readonly<Record<string, Scope>>): void {
  for (const [coordinate, scope] of Object.entries(scopes)) {
    const [typeName, fieldName] = coordinate.split('.');
    const type = schema.getType(typeName ?? '');
    const field = type instanceof GraphQLObjectType ? type.getFields()[fieldName ?? ''] : undefined;
    if (!field) throw new Error(`FIELD_SCOPES names ${coordinate}, which is not in the schema.`);
    field.resolve = guarded(field.resolve, scope);
    if (field.subscribe) field.subscribe = guarded(field.subscribe, scope);
  }
}

function guarded(
  resolve: GraphQLFieldResolver<unknown, GraphQLContext> | undefined,
  scope: Scope,
): GraphQLFieldResolver<unknown, GraphQLContext> {
  return (source, args, ctx, info) => {
    requireScope(ctx.principal, scope);
    if (resolve) return resolve(source, args, ctx, info);
    return (source as Record<string, unknown> | null)?.[info.fieldName];
  };
}

function list<T>(value: T | readonly T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}

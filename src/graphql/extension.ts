import type { DocumentNode } from 'graphql';
import type { Scope } from '../core/auth.js';
import type { GraphQLResolvers } from './resolvers.js';

/** Options of `createSchema`: the type definitions, resolvers and scopes a host adds to the schema. */
export interface CreateSchemaOptions {
  /** Type definitions added to the built-in ones, e.g. `extend type Query { … }`. */
  readonly typeDefs?: string | DocumentNode | readonly (string | DocumentNode)[];
  /** Resolvers of the added fields; they receive the `GraphQLContext`. */
  readonly resolvers?: GraphQLResolvers | readonly GraphQLResolvers[];
  /** Scopes of the added fields (`Type.field` → scope), checked before their resolvers run. */
  readonly scopes?: Readonly<Record<string, Scope>>;
}

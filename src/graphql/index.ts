/**
 * `switchboard-kit/graphql`: the typed query interface (spec section 4.1) as Web-standard parts. A
 * fetch handler for GraphQL over HTTP, a runtime-agnostic graphql-ws server for subscriptions, and a
 * schema factory the host can extend ("add fields, never break").
 *
 * @example
 * import { createGraphQLHandler, createSchema } from 'switchboard-kit/graphql';
 * const schema = createSchema({ typeDefs: 'extend type Query { ping: String! }', resolvers: { Query: { ping: () => 'pong' } } });
 * const graphql = createGraphQLHandler(runtime, { domain, bus, authenticate, schema, introspection: false });
 * const response = await graphql(new Request('http://localhost/graphql?query={ping}'));
 *
 * @packageDocumentation
 */
export type { GraphQLConfig } from './config.js';
export type { GraphQLContext } from './context.js';
export type { GraphQLOptions, GraphQLParts, GraphQLRuntime, GraphQLSharedConfig } from './engine.js';
export {
  createGraphQLHandler,
  type GraphQLHandlerConfig,
  type GraphQLHandlerOptions,
} from './handler.js';
export { PREFLIGHT_HEADERS } from './http/multipart.js';
export { DEFAULT_LIMITS, type GraphQLLimits } from './limits.js';
export { type GraphQLResolvers, listRange, type Paging } from './resolvers.js';
export { resourceSchema } from './resources.js';
export { type CreateSchemaOptions, createSchema } from './schema.js';
export { FIELD_SCOPES } from './scopes.js';
export { typeDefs } from './type-defs.js';
export type { Upload } from './upload.js';
export { FLOODING_CLOSE_CODE } from './websocket/budgets.js';
export {
  createGraphQLWebSocketServer,
  type GraphQLWebSocketConfig,
  type GraphQLWebSocketExtra,
  type GraphQLWebSocketOptions,
  type GraphQLWebSocketServer,
  SLOW_SUBSCRIBER_CLOSE_CODE,
} from './websocket/server.js';
export { type AcceptWebSocketOptions, acceptWebSocket, type UpgradedWebSocket } from './websocket/web.js';

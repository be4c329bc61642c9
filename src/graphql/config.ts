import type { GraphQLHandlerConfig } from './handler.js';
import type { GraphQLWebSocketConfig } from './websocket/server.js';

/**
 * The settings of the whole GraphQL interface, HTTP and WebSocket (one schema for both): what
 * `createSwitchboard`'s `graphql` takes. Settings only: the domain, bus, authenticator, budgets,
 * logger and telemetry are given by the switchboard.
 */
export interface GraphQLConfig extends GraphQLHandlerConfig, GraphQLWebSocketConfig {}

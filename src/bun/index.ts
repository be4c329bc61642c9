/**
 * The Bun runtime adapter. `Bun.serve({ fetch: switchboard.fetch })` serves REST, GraphQL, OAuth and
 * webhooks as they are; this adds GraphQL subscriptions over Bun's own server WebSockets.
 *
 * @example
 * import { createSwitchboard } from 'switchboard-kit';
 * import { bunGraphQLWebSocket } from 'switchboard-kit/bun';
 * const switchboard = createSwitchboard();
 * switchboard.start();
 * const ws = bunGraphQLWebSocket(switchboard.graphqlWebSocket!);
 * Bun.serve({
 *   port: 4000,
 *   fetch: (request, server) =>
 *     ws.upgrade(request, server) ??
 *     switchboard.fetch(request, { clientAddress: server.requestIP(request)?.address }),
 *   websocket: ws.websocket,
 * });
 *
 * @packageDocumentation
 */
export {
  type BunGraphQLWebSocket,
  type BunGraphQLWebSocketOptions,
  type BunServer,
  type BunServerWebSocket,
  type BunWebSocketHandler,
  bunGraphQLWebSocket,
} from './websocket.js';

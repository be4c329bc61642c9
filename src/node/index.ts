/**
 * The Node.js runtime adapter: serves any Switchboard fetch handler on node:http, with WebSocket upgrade
 * (via `ws`) and graceful shutdown. Nothing else in the package imports `node:*`.
 *
 * @example
 * import { createSwitchboard } from 'switchboard-kit';
 * import { serve } from 'switchboard-kit/node';
 * const switchboard = createSwitchboard();
 * switchboard.start();
 * const server = await serve({ fetch: switchboard.fetch, onShutdown: switchboard.close });
 */

export {
  type AttachedWebSockets,
  type AttachWebSocketsOptions,
  attachWebSockets,
  type WebSocketRoute,
} from './attach-websockets.js';
export { toWebRequest, writeWebResponse } from './convert.js';
export {
  createRequestListener,
  type RequestListener,
  type RequestListenerOptions,
} from './listener.js';
export { resolveHost } from './resolve-host.js';
export { type NodeServer, type ServeOptions, serve } from './serve.js';
export { type GraphQLWebSocketRouteOptions, graphqlWebSocketRoute } from './websocket.js';

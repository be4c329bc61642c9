/**
 * WebSocket routes on a node:http server: the upgrade, the sub-protocol choice (a refused one is a 400
 * before any upgrade, as the Web and Bun hookups answer), the message limit, and a socket error that
 * never crashes the process. `serve` uses it; a host with its own server (Express, Fastify …) calls it.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { type Logger, silentLogger } from '../core/runtime.js';

/** A WebSocket endpoint: connections upgraded on `path` are handed to `onConnection`. */
export interface WebSocketRoute {
  readonly path: string;
  /** Chooses a sub-protocol from the client's offer (e.g. `graphql-transport-ws`); `false` refuses. */
  readonly handleProtocols?: (protocols: Set<string>, request: IncomingMessage) => string | false;
  readonly onConnection: (socket: WebSocket, request: IncomingMessage) => void;
}

/** Options of {@link attachWebSockets}. */
export interface AttachWebSocketsOptions {
  /** Largest message accepted; a bigger one closes the socket with 1009 before buffering (default 1 MiB). */
  readonly maxMessageBytes?: number;
  readonly logger?: Logger;
}

/** The sockets of {@link attachWebSockets}, for a shutdown. */
export interface AttachedWebSockets {
  /** Stops accepting upgrades (503) and closes open sockets with `code` (default 1001, going away). */
  close(code?: number, reason?: string): void;
  /** Cuts the sockets still open. */
  terminate(): void;
}

/**
 * Serves `routes` on `server`'s upgrades; an upgrade on any other path is answered 404.
 *
 * @example
 * const server = app.listen(3000); // Express, or any node:http server
 * const sockets = attachWebSockets(server, [graphqlWebSocketRoute(switchboard.graphqlWebSocket!)]);
 * // on shutdown: sockets.close(); server.close();
 */
export function attachWebSockets(
  server: Server,
  routes: readonly WebSocketRoute[],
  options: AttachWebSocketsOptions = {},
): AttachedWebSockets {
  const logger = options.logger ?? silentLogger;
  let closing = false;
  const routeOf = (req: IncomingMessage): WebSocketRoute | undefined => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    return routes.find((r) => r.path === path);
  };
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes ?? 1024 * 1024,
    handleProtocols: (protocols, req) => {
      const route = routeOf(req);
      if (route?.handleProtocols) return route.handleProtocols(protocols, req);
      return protocols.values().next().value ?? false;
    },
  });
  // ws reports protocol violations (e.g. an oversized message, closed with 1009) as 'error' events;
  // unheard, one would crash the process. One listener for all: made here, it holds no request.
  const onSocketError = (error: Error): void =>
    logger.log('warn', 'websocket closed on a protocol error', { error: String(error) });
  const refuse = (socket: Duplex, status: string) =>
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const route = routeOf(req);
    if (closing) return refuse(socket, '503 Service Unavailable');
    if (!route) return refuse(socket, '404 Not Found');
    // ws upgrades even when `handleProtocols` answers false (it only leaves the header out).
    if (route.handleProtocols?.(offeredProtocols(req), req) === false)
      return refuse(socket, '400 Bad Request');
    sockets.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', onSocketError);
      route.onConnection(ws, req);
    });
  });

  return {
    close(code = 1001, reason = 'server shutting down') {
      closing = true;
      for (const ws of sockets.clients) ws.close(code, reason);
    },
    terminate() {
      for (const ws of sockets.clients) ws.terminate();
    },
  };
}

/** The sub-protocols a WebSocket handshake offers (`Sec-WebSocket-Protocol`, RFC 6455 §4.1). */
function offeredProtocols(req: IncomingMessage): Set<string> {
  const header = req.headers['sec-websocket-protocol'] ?? '';
  return new Set(
    header
      .split(',')
      .map((protocol) => protocol.trim())
      .filter(Boolean),
  );
}

import type { IncomingMessage } from 'node:http';
import { CloseCode, handleProtocols } from 'graphql-ws';
import type { GraphQLWebSocketServer } from '../graphql/websocket.js';
import { SLOW_SUBSCRIBER_CLOSE_CODE } from '../graphql/websocket.js';
import type { WebSocketRoute } from './serve.js';

export interface GraphQLWebSocketRouteOptions {
  /** Default `/graphql`, the same path as the HTTP endpoint. */
  readonly path?: string;
  /** Interval of WebSocket pings; a peer that misses a pong by the next one is cut. Default 12 s; 0 turns off. */
  readonly keepAliveMs?: number;
  /** Largest incoming message; a larger one closes the socket with 1009. Default: `limits.maxBodyBytes`. */
  readonly maxMessageBytes?: number;
  /** Bytes waiting to be sent to a peer that does not read; beyond it the socket is closed (1013). Default 1 MB. */
  readonly maxBufferedBytes?: number;
}

/**
 * Hooks a GraphQL WebSocket server (from `createGraphQLWebSocketServer` or
 * `switchboard.graphqlWebSocket`) to `serve({ websockets })`, speaking graphql-transport-ws.
 *
 * @example
 * await serve({ fetch: switchboard.fetch, websockets: [graphqlWebSocketRoute(switchboard.graphqlWebSocket!)] });
 */
export function graphqlWebSocketRoute(
  server: GraphQLWebSocketServer,
  options: GraphQLWebSocketRouteOptions = {},
): WebSocketRoute {
  const keepAliveMs = options.keepAliveMs ?? 12_000;
  const maxMessageBytes = options.maxMessageBytes ?? server.limits.maxBodyBytes;
  const maxBufferedBytes = options.maxBufferedBytes ?? 1_000_000;
  return {
    path: options.path ?? '/graphql',
    handleProtocols: (protocols) => handleProtocols(protocols),
    onConnection(socket, req) {
      const close = (code: number, reason: string): void => {
        if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING)
          socket.close(code, reason);
      };
      // false when the message was not sent: the socket is closed, or closing because it reads too slowly.
      const writable = (): boolean => {
        if (socket.readyState !== socket.OPEN) return false;
        if (socket.bufferedAmount <= maxBufferedBytes) return true;
        close(SLOW_SUBSCRIBER_CLOSE_CODE, 'Subscriber too slow');
        return false;
      };
      const sendText = (data: string): void => {
        if (writable()) socket.send(data);
      };
      const closed = server.opened(
        {
          protocol: socket.protocol,
          send: (data) =>
            new Promise<void>((resolve, reject) => {
              if (!writable()) return resolve();
              socket.send(data, (error) => (error ? reject(error) : resolve()));
            }),
          close,
          onMessage(callback) {
            socket.on('message', async (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
              const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
              if (size > maxMessageBytes) return close(1009, 'Message too big');
              if (isBinary) return close(CloseCode.BadRequest, 'Binary messages are not supported');
              try {
                await callback(String(data));
              } catch {
                close(CloseCode.InternalServerError, 'Internal server error');
              }
            });
          },
        },
        { request: upgradeRequest(req), close, sendText },
      );

      let alive = true;
      socket.on('pong', () => {
        alive = true;
      });
      const pinger =
        keepAliveMs > 0
          ? setInterval(() => {
              if (!alive) return socket.terminate();
              alive = false;
              socket.ping();
            }, keepAliveMs)
          : null;
      socket.once('close', (code, reason) => {
        if (pinger) clearInterval(pinger);
        void closed(code, reason.toString());
      });
    },
  };
}

/** The upgrade request as a Web `Request`, so `authenticate` can fall back on its headers. */
function upgradeRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    // Upgrade-specific headers are not valid on a Web Request and mean nothing to authenticate.
    if (!/^(connection|upgrade|sec-websocket-.*)$/i.test(name)) headers.append(name, req.rawHeaders[i + 1]!);
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  } catch {
    url = new URL('http://localhost/graphql');
  }
  return new Request(url, { headers });
}

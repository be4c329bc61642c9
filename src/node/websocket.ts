import type { IncomingMessage } from 'node:http';
import { CloseCode, handleProtocols } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { GraphQLWebSocketExtra, GraphQLWebSocketServer } from '../graphql/websocket/server.js';
import { SLOW_SUBSCRIBER_CLOSE_CODE } from '../graphql/websocket/server.js';
import type { WebSocketRoute } from './attach-websockets.js';

/** Options of {@link graphqlWebSocketRoute}: the path, keep-alive pings and message and buffer limits. */
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
  const keepAlive = keepAliveMs > 0 ? createKeepAlive(keepAliveMs) : undefined;
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
            // Not async: a subscribe message's handling lasts as long as the subscription, and an
            // awaiting listener would hold the message's bytes for all that time.
            socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
              const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
              if (size > maxMessageBytes) return close(1009, 'Message too big');
              if (isBinary) return close(CloseCode.BadRequest, 'Binary messages are not supported');
              callback(String(data)).catch(() =>
                close(CloseCode.InternalServerError, 'Internal server error'),
              );
            });
          },
        },
        new SocketExtra(req, close, sendText),
      );
      keepAlive?.add(socket);
      socket.once('close', (code, reason) => {
        keepAlive?.delete(socket);
        void closed(code, reason.toString());
      });
    },
  };
}

/**
 * One timer pings every socket of the route: a socket that has not answered the previous ping by the
 * next round is cut. A timer per socket would cost memory and timer-list work for each of thousands.
 */
function createKeepAlive(intervalMs: number): {
  add(socket: WebSocket): void;
  delete(socket: WebSocket): void;
} {
  // Whether each socket answered since the last round.
  const sockets = new Map<WebSocket, boolean>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const onPong = function (this: WebSocket): void {
    if (sockets.has(this)) sockets.set(this, true);
  };
  const round = (): void => {
    for (const [socket, answered] of sockets) {
      if (!answered) {
        sockets.delete(socket);
        socket.terminate();
      } else {
        sockets.set(socket, false);
        socket.ping();
      }
    }
  };
  return {
    add(socket) {
      sockets.set(socket, true);
      socket.on('pong', onPong);
      timer ??= setInterval(round, intervalMs);
    },
    delete(socket) {
      sockets.delete(socket);
      if (sockets.size === 0 && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
    },
  };
}

/**
 * What the server core gets with the socket. The upgrade request, for `authenticate` to fall back on
 * its headers and for operations' context, is built each time it is asked for (at `connection_init`,
 * and per query or mutation): only the headers it carries stay with the socket, as one flat list. A
 * class, so its getter is shared by every socket rather than made for each.
 */
class SocketExtra implements GraphQLWebSocketExtra {
  // [name, value, name, value, …]: upgrade-specific headers are not valid on a Web Request and mean
  // nothing to `authenticate`.
  readonly #headers: string[] = [];
  readonly #target: string;
  readonly #host: string;
  /** The peer's address, for the budgets of callers without credentials. */
  readonly clientAddress: string | undefined;

  constructor(
    req: IncomingMessage,
    readonly close: (code: number, reason: string) => void,
    readonly sendText: (data: string) => void,
  ) {
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      if (!/^(connection|upgrade|sec-websocket-.*)$/i.test(raw[i]!)) this.#headers.push(raw[i]!, raw[i + 1]!);
    }
    this.#target = req.url ?? '/';
    this.#host = req.headers.host ?? 'localhost';
    this.clientAddress = req.socket.remoteAddress;
  }

  get request(): Request {
    let url: URL;
    try {
      url = new URL(this.#target, `http://${this.#host}`);
    } catch {
      url = new URL('http://localhost/graphql');
    }
    const headers = new Headers();
    for (let i = 0; i < this.#headers.length; i += 2)
      headers.append(this.#headers[i]!, this.#headers[i + 1]!);
    return new Request(url, { headers });
  }
}

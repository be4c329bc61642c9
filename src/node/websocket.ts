import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
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
      const transport = new NodeSocket(socket, req, maxMessageBytes, maxBufferedBytes);
      const closed = server.opened(transport, transport);
      keepAlive?.add(socket);
      // `on`, not `once`: 'close' comes once anyway, and `once` would keep a wrapper per socket.
      socket.on('close', (code, reason) => {
        keepAlive?.delete(socket);
        void closed(code, reason.toString());
      });
    },
  };
}

/**
 * Keep-alive pings: each socket is pinged once per interval and cut if it has not answered the
 * previous ping by then. One timer for every socket of the route (a timer each would cost memory and
 * timer-list work for each of thousands), and the sockets are pinged in slices spread over the
 * interval: pinging 10,000 at once, and reading their 10,000 pongs, would hold up a fan-out under way
 * by a few hundred milliseconds.
 */
function createKeepAlive(intervalMs: number): {
  add(socket: WebSocket): void;
  delete(socket: WebSocket): void;
} {
  // For each socket: its slice (which tick of the interval pings it) times 2, plus 1 if it answered
  // since its last ping. Small integers: nothing allocated per socket beyond the entry.
  const sockets = new Map<WebSocket, number>();
  let added = 0;
  let turn = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const onPong = function (this: WebSocket): void {
    const state = sockets.get(this);
    if (state !== undefined) sockets.set(this, state | 1);
  };
  const round = (): void => {
    const slice = turn;
    turn = (turn + 1) % KEEP_ALIVE_SLICES;
    for (const [socket, state] of sockets) {
      if (state >> 1 !== slice) continue;
      if (!(state & 1)) {
        sockets.delete(socket);
        socket.terminate();
      } else {
        sockets.set(socket, state & ~1);
        socket.ping();
      }
    }
  };
  return {
    add(socket) {
      sockets.set(socket, ((added++ % KEEP_ALIVE_SLICES) << 1) | 1);
      socket.on('pong', onPong);
      timer ??= setInterval(round, intervalMs / KEEP_ALIVE_SLICES);
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

/** How many slices the sockets' keep-alive pings are spread over (see `createKeepAlive`). */
const KEEP_ALIVE_SLICES = 12;

/**
 * One socket as the server core sees it: graphql-ws's transport (`protocol`, `send`, `close`,
 * `onMessage`) and the socket's `extra` in one object. The upgrade request, for `authenticate` to fall
 * back on its headers and for operations' context, is built each time it is asked for (at
 * `connection_init`, and per query or mutation): only the headers it carries stay with the socket, as
 * one flat list. A class, so its methods are shared by every socket rather than made for each.
 */
class NodeSocket implements GraphQLWebSocketExtra {
  // [name, value, name, value, …]: upgrade-specific headers are not valid on a Web Request and mean
  // nothing to `authenticate`.
  readonly #headers: string[] = [];
  readonly #target: string;
  readonly #host: string;
  /** The TCP socket under the WebSocket, corked while several frames for it are written. */
  readonly #stream: Socket;

  constructor(
    readonly socket: WebSocket,
    req: IncomingMessage,
    readonly maxMessageBytes: number,
    readonly maxBufferedBytes: number,
  ) {
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      if (!/^(connection|upgrade|sec-websocket-.*)$/i.test(raw[i]!)) this.#headers.push(raw[i]!, raw[i + 1]!);
    }
    this.#target = req.url ?? '/';
    this.#host = req.headers.host ?? 'localhost';
    this.#stream = req.socket;
  }

  /** The peer's address, for the budgets of callers without credentials: read when asked, not kept. */
  get clientAddress(): string | undefined {
    return this.#stream.remoteAddress;
  }

  get protocol(): string {
    return this.socket.protocol;
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

  close(code: number, reason: string): void {
    const { socket } = this;
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING)
      socket.close(code, reason);
  }

  /** graphql-ws's messages (acknowledgements, results of queries): settles once written. */
  send(data: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (!this.#writable()) return resolve();
      this.socket.send(data, (error) => (error ? reject(error) : resolve()));
    });
  }

  sendText(data: string): void {
    if (this.#writable()) this.socket.send(data);
  }

  cork(): void {
    this.#stream.cork();
  }

  uncork(): void {
    this.#stream.uncork();
  }

  onMessage(callback: (data: string) => Promise<void>): void {
    // Not async: a subscribe message's handling lasts as long as the subscription, and an awaiting
    // listener would hold the message's bytes for all that time.
    this.socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;
      if (size > this.maxMessageBytes) return this.close(1009, 'Message too big');
      if (isBinary) return this.close(CloseCode.BadRequest, 'Binary messages are not supported');
      callback(String(data)).catch(() => this.close(CloseCode.InternalServerError, 'Internal server error'));
    });
  }

  /** False when a message cannot be sent: the socket is closed, or closing because it reads too slowly. */
  #writable(): boolean {
    const { socket } = this;
    if (socket.readyState !== socket.OPEN) return false;
    if (socket.bufferedAmount <= this.maxBufferedBytes) return true;
    this.close(SLOW_SUBSCRIBER_CLOSE_CODE, 'Subscriber too slow');
    return false;
  }
}

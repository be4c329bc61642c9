import { CloseCode, handleProtocols } from 'graphql-ws';
import { type GraphQLWebSocketServer, SLOW_SUBSCRIBER_CLOSE_CODE } from '../graphql/websocket/server.js';
import { pathnameOf } from '../http/url.js';

/** Options of {@link bunGraphQLWebSocket}: the path, keep-alive and message and buffer limits. */
export interface BunGraphQLWebSocketOptions {
  /** Default `/graphql`, the same path as the HTTP endpoint. */
  readonly path?: string;
  /**
   * Seconds a socket may be silent before Bun pings it; one that does not answer within as long again
   * is cut. Default 12 (as `keepAliveMs` on Node); 0 turns it off.
   */
  readonly idleTimeout?: number;
  /** Largest incoming message; Bun closes the socket with 1009 on a larger one. Default: `limits.maxBodyBytes`. */
  readonly maxMessageBytes?: number;
  /** Bytes queued for a peer that does not read; beyond it the socket is closed (1013). Default 1 MB. */
  readonly maxBufferedBytes?: number;
}

/** The members of Bun's `Server` the hookup uses: `server.upgrade` and `server.requestIP`. */
export interface BunServer {
  upgrade(
    request: Request,
    options: { readonly data: unknown; readonly headers?: Record<string, string> },
  ): boolean;
  requestIP(request: Request): { readonly address: string } | null;
}

/** The members of Bun's `ServerWebSocket` the hookup uses. */
export interface BunServerWebSocket {
  /** What the upgrade attached: the hookup's own record of the socket. */
  readonly data: unknown;
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** Bytes sent, -1 when queued behind back-pressure, 0 when dropped. */
  send(data: string): number;
  close(code?: number, reason?: string): void;
  getBufferedAmount(): number;
}

/** Bun's `websocket` option of `Bun.serve` for GraphQL sockets: their handlers and settings. */
export interface BunWebSocketHandler {
  readonly maxPayloadLength: number;
  readonly backpressureLimit: number;
  readonly closeOnBackpressureLimit: boolean;
  readonly idleTimeout: number;
  readonly sendPings: boolean;
  open(ws: BunServerWebSocket): void;
  message(ws: BunServerWebSocket, message: string | Uint8Array): void;
  close(ws: BunServerWebSocket, code: number, reason: string): void;
}

/** What {@link bunGraphQLWebSocket} returns: the upgrade for `fetch` and the `websocket` option. */
export interface BunGraphQLWebSocket {
  /**
   * Upgrades a WebSocket request on the path: a `Response` when it took the request (Bun ignores it
   * after a successful upgrade; 400 when the client offers no graphql-transport-ws sub-protocol), else
   * undefined, so the host serves the request itself.
   */
  upgrade(request: Request, server: BunServer): Response | undefined;
  /** Pass as `websocket` to `Bun.serve`. */
  readonly websocket: BunWebSocketHandler;
}

/**
 * Hooks a GraphQL WebSocket server (`switchboard.graphqlWebSocket` or `createGraphQLWebSocketServer`)
 * to Bun's server WebSockets, speaking graphql-transport-ws: picks the sub-protocol, records the peer
 * address for rate limits, enforces the message size (Bun's `maxPayloadLength`) and closes a peer that
 * does not read (1013). Bun pings idle sockets itself.
 *
 * @example
 * import { bunGraphQLWebSocket } from 'switchboard-kit/bun';
 * const ws = bunGraphQLWebSocket(switchboard.graphqlWebSocket!);
 * Bun.serve({
 *   port: 4000,
 *   fetch: (request, server) =>
 *     ws.upgrade(request, server) ??
 *     switchboard.fetch(request, { clientAddress: server.requestIP(request)?.address }),
 *   websocket: ws.websocket,
 * });
 */
export function bunGraphQLWebSocket(
  server: GraphQLWebSocketServer,
  options: BunGraphQLWebSocketOptions = {},
): BunGraphQLWebSocket {
  const path = options.path ?? '/graphql';
  const maxBufferedBytes = options.maxBufferedBytes ?? 1_000_000;
  return {
    upgrade(request, bun) {
      if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket' || pathnameOf(request.url) !== path)
        return undefined;
      const protocol = handleProtocols(request.headers.get('sec-websocket-protocol') ?? '');
      if (!protocol) return new Response('Offer the graphql-transport-ws sub-protocol.', { status: 400 });
      // The headers for `authenticate` and the peer address for the budgets of a socket without
      // credentials, kept apart from the request Bun takes over.
      const snapshot = new Request(request.url, { headers: new Headers(request.headers) });
      const data = new SocketRecord(snapshot, bun.requestIP(request)?.address, protocol);
      if (!bun.upgrade(request, { data, headers: { 'sec-websocket-protocol': protocol } }))
        return new Response('Not a WebSocket handshake.', { status: 400 });
      return new Response(null);
    },
    websocket: {
      maxPayloadLength: options.maxMessageBytes ?? server.limits.maxBodyBytes,
      // Our own limit closes a slow peer first; past Bun's, Bun would drop messages unless it closes.
      backpressureLimit: maxBufferedBytes + 16 * 1024 * 1024,
      closeOnBackpressureLimit: true,
      idleTimeout: options.idleTimeout ?? 12,
      sendPings: true,
      open(ws) {
        const record = ws.data as SocketRecord;
        const close = (code: number, reason: string): void => closeSocket(ws, code, reason);
        const send = (data: string): void => {
          if (ws.readyState !== OPEN) return;
          if (ws.getBufferedAmount() > maxBufferedBytes)
            close(SLOW_SUBSCRIBER_CLOSE_CODE, 'Subscriber too slow');
          else ws.send(data);
        };
        record.closed = server.opened(
          {
            protocol: record.protocol,
            send,
            close,
            onMessage(callback) {
              record.receive = callback;
            },
          },
          { request: record.request, clientAddress: record.clientAddress, close, sendText: send },
        );
      },
      message(ws, message) {
        if (typeof message !== 'string')
          return closeSocket(ws, CloseCode.BadRequest, 'Binary messages are not supported');
        // Not awaited: a subscribe message's handling may last as long as its subscription.
        (ws.data as SocketRecord)
          .receive?.(message)
          .catch(() => closeSocket(ws, CloseCode.InternalServerError, 'Internal server error'));
      },
      close(ws, code, reason) {
        const { closed } = ws.data as SocketRecord;
        // Bun calls this from inside `ws.close()`; the server core hears of a close after the call
        // that caused it, as on the other runtimes.
        if (closed) queueMicrotask(() => void closed(code, reason));
      },
    },
  };
}

const CONNECTING = 0;
const OPEN = 1;

function closeSocket(ws: BunServerWebSocket, code: number, reason: string): void {
  if (ws.readyState === OPEN || ws.readyState === CONNECTING) ws.close(code, reason);
}

/** What the hookup keeps per socket, as its `data`: from the upgrade, then from the server core. */
class SocketRecord {
  receive?: (data: string) => Promise<void>;
  closed?: (code?: number, reason?: string) => Promise<void>;

  constructor(
    readonly request: Request,
    readonly clientAddress: string | undefined,
    readonly protocol: string,
  ) {}
}

import { CloseCode, handleProtocols } from 'graphql-ws';
import { type GraphQLWebSocketServer, SLOW_SUBSCRIBER_CLOSE_CODE } from './server.js';

/** Options of {@link acceptWebSocket}: the peer's address, and message and buffer limits of the socket. */
export interface AcceptWebSocketOptions {
  /** The peer's network address (Deno's `info.remoteAddr.hostname`), for the budgets of a socket without credentials. */
  readonly clientAddress?: string | undefined;
  /** Largest incoming message; a larger one closes the socket with 1009. Default: `limits.maxBodyBytes`. */
  readonly maxMessageBytes?: number;
  /** Bytes queued for a peer that does not read; beyond it the socket is closed (1013). Default 1 MB. */
  readonly maxBufferedBytes?: number;
}

/** What a runtime's upgrade returns: the server side of the socket and the 101 response to send. */
export interface UpgradedWebSocket {
  readonly socket: WebSocket;
  readonly response: Response;
}

/**
 * Upgrades a request to GraphQL over WebSocket on a runtime with standard Web `WebSocket`s (Deno, Bun's
 * Web API, Cloudflare Workers), the way `graphqlWebSocketRoute` does on Node's `ws`: picks the
 * `graphql-transport-ws` sub-protocol (400 when the client offers none), lets the runtime upgrade, and
 * serves the socket. Keep-alive pings belong to the runtime (Deno's `idleTimeout`).
 *
 * @example
 * // Deno
 * Deno.serve((request, info) => {
 *   const clientAddress = info.remoteAddr.hostname;
 *   return request.headers.get('upgrade') === 'websocket'
 *     ? acceptWebSocket(switchboard.graphqlWebSocket!, request, (protocol) =>
 *         Deno.upgradeWebSocket(request, { protocol, idleTimeout: 12 }), { clientAddress })
 *     : switchboard.fetch(request, { clientAddress });
 * });
 */
export function acceptWebSocket(
  server: GraphQLWebSocketServer,
  request: Request,
  upgrade: (protocol: string) => UpgradedWebSocket,
  options: AcceptWebSocketOptions = {},
): Response {
  const protocol = handleProtocols(request.headers.get('sec-websocket-protocol') ?? '');
  if (!protocol) return new Response('Offer the graphql-transport-ws sub-protocol.', { status: 400 });
  // Runtimes may close the request once upgraded (Deno does): keep the headers for `authenticate`.
  const snapshot = new Request(request.url, { headers: new Headers(request.headers) });
  const { socket, response } = upgrade(protocol);
  serveSocket(server, socket, { ...options, protocol, request: snapshot });
  return response;
}

function serveSocket(
  server: GraphQLWebSocketServer,
  socket: WebSocket,
  options: AcceptWebSocketOptions & { readonly protocol: string; readonly request: Request },
): void {
  const maxMessageBytes = options.maxMessageBytes ?? server.limits.maxBodyBytes;
  const maxBufferedBytes = options.maxBufferedBytes ?? 1_000_000;
  const close = (code: number, reason: string): void => {
    if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)
      socket.close(code, reason);
  };
  const send = (data: string): void => {
    if (socket.readyState !== WebSocket.OPEN) return;
    if (socket.bufferedAmount > maxBufferedBytes) close(SLOW_SUBSCRIBER_CLOSE_CODE, 'Subscriber too slow');
    else socket.send(data);
  };
  const start = (): void => {
    const closed = server.opened(
      {
        // Deno leaves `protocol` empty on the server side.
        protocol: socket.protocol || options.protocol,
        send,
        close,
        onMessage(callback) {
          socket.addEventListener('message', async (event: MessageEvent) => {
            if (typeof event.data !== 'string')
              return close(CloseCode.BadRequest, 'Binary messages are not supported');
            // UTF-16 length is within a factor of 3 of the UTF-8 size; checking it is cheap and safe.
            if (
              event.data.length * 3 > maxMessageBytes &&
              new TextEncoder().encode(event.data).byteLength > maxMessageBytes
            )
              return close(1009, 'Message too big');
            try {
              await callback(event.data);
            } catch {
              close(CloseCode.InternalServerError, 'Internal server error');
            }
          });
        },
      },
      { request: options.request, clientAddress: options.clientAddress, close, sendText: send },
    );
    socket.addEventListener('close', (event: CloseEvent) => void closed(event.code, event.reason), {
      once: true,
    });
  };
  if (socket.readyState === WebSocket.OPEN) start();
  else socket.addEventListener('open', start, { once: true });
}

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../core/runtime.js';
import { silentLogger } from '../core/runtime.js';
import type { ConnectionInfo } from '../http/request-context.js';
import { attachWebSockets, type WebSocketRoute } from './attach-websockets.js';
import type { RequestListenerOptions } from './listener.js';
import { createRequestListener, type RequestListener } from './listener.js';

/** Options of {@link serve}: the fetch handler, where to listen, WebSocket routes and how to shut down. */
export interface ServeOptions {
  /** The handler; it is given the peer's address as its second argument (see `ConnectionInfo`). */
  readonly fetch: (request: Request, info: ConnectionInfo) => Promise<Response>;
  /** 0 picks a free port (tests). Default 4000. */
  readonly port?: number;
  /** Default 127.0.0.1; use 0.0.0.0 to listen on every interface. */
  readonly host?: string;
  readonly websockets?: readonly WebSocketRoute[];
  /** Runs after the server has drained, e.g. to stop the relay and persist in-flight webhook work. */
  readonly onShutdown?: () => Promise<void>;
  /** Signals that start a graceful shutdown. Default SIGTERM and SIGINT; `[]` leaves signals alone. */
  readonly shutdownSignals?: readonly NodeJS.Signals[];
  /** Largest WebSocket message accepted; bigger ones close the socket with 1009 before buffering (default 1 MiB). */
  readonly maxWebSocketMessageBytes?: number;
  /** How long in-flight requests may take to finish before their connections are cut (default 10 s). */
  readonly drainTimeoutMs?: number;
  readonly logger?: Logger;
  /** See {@link RequestListenerOptions.overrideGlobals}. Default true. */
  readonly overrideGlobals?: boolean;
}

/** A running server started by {@link serve}: its address, the underlying node:http server, and `close`. */
export interface NodeServer {
  /** e.g. `http://127.0.0.1:4000` */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Graceful shutdown: stop accepting, drain in-flight requests, close sockets, run `onShutdown`. */
  close(): Promise<void>;
}

/**
 * Serves a Web fetch handler on node:http, with WebSocket upgrade and graceful shutdown.
 *
 * @example
 * const server = await serve({ fetch: switchboard.fetch, port: 4000, onShutdown: () => switchboard.close() });
 * console.log(`listening on ${server.url}`);
 */
export async function serve(options: ServeOptions): Promise<NodeServer> {
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? '127.0.0.1';
  let origin = `http://${host}`;
  // Requests not served yet, counted when the listener's promise settles (after the last byte is
  // written): no listener per request. Shutdown waits for them, and cuts the event streams among them.
  let inFlight = 0;
  const eventStreams = new Set<ServerResponse>();
  let closing: Promise<void> | null = null;
  const idle = new Set<() => void>();
  const served = (res: ServerResponse): void => {
    inFlight--;
    eventStreams.delete(res);
    if (inFlight === 0) for (const resolve of idle) resolve();
  };

  // Made once the port is known: a request without a Host header (HTTP/1.0) is taken to be for us.
  let listener: RequestListener = async () => {};
  const server = createServer((req, res) => {
    inFlight++;
    if (req.headers.accept?.includes('text/event-stream')) eventStreams.add(res);
    if (closing) res.setHeader('connection', 'close');
    listener(req, res).then(
      () => served(res),
      (error: unknown) => {
        logger.log('error', 'failed to write response', { error: String(error) });
        res.destroy();
        served(res);
      },
    );
  });

  const sockets = attachWebSockets(server, options.websockets ?? [], {
    maxMessageBytes: options.maxWebSocketMessageBytes,
    logger,
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4000, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  listener = createRequestListener(options.fetch, {
    logger,
    hostname: origin.slice('http://'.length),
    overrideGlobals: options.overrideGlobals,
  });

  async function shutdown(): Promise<void> {
    server.close();
    server.closeIdleConnections();
    sockets.close();
    // An event stream (GraphQL over SSE) never ends by itself: cut it now, its client reconnects.
    for (const res of eventStreams) res.socket?.destroy();
    if (inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.drainTimeoutMs ?? 10_000);
        idle.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    server.closeAllConnections();
    sockets.terminate();
    await options.onShutdown?.();
  }

  const close = (): Promise<void> => {
    closing ??= shutdown();
    return closing;
  };

  const signals = options.shutdownSignals ?? ['SIGTERM', 'SIGINT'];
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.log('info', 'shutting down', { signal });
    close().finally(() => {
      for (const s of signals) process.off(s, onSignal);
    });
  };
  for (const s of signals) process.once(s, onSignal);

  return { url: origin, port, server, close };
}

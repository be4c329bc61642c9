/**
 * Switchboard inside an Express 5 app: the host's body parser and its own routes first, then Switchboard
 * for every path it serves (`/api/v1`, `/graphql`, `/oauth`, `/.well-known`, `/healthz` …), and GraphQL
 * subscriptions over WebSocket on the same server.
 *
 * Run it: `node --import tsx examples/frameworks/express.ts` (it prints a generated admin API key), or with
 * `SWITCHBOARD_API_KEY=<32+ characters>` to choose the key.
 */
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { createSwitchboard } from 'switchboard-kit';
import { attachWebSockets, createRequestListener, graphqlWebSocketRoute } from 'switchboard-kit/node';
import { randomSecret } from 'switchboard-kit/oauth';

/** Options of {@link startExpressApp}. */
export interface ExpressAppOptions {
  /** 0 picks a free port. Default 3000. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** The host's admin API key (32+ characters), with every scope. */
  readonly adminApiKey?: string;
}

/** A running app: its address and a graceful `close`. */
export interface RunningExpressApp {
  /** e.g. `http://127.0.0.1:3000` */
  readonly url: string;
  /** Stops accepting, cuts open connections and event streams, then stops Switchboard's background work. */
  close(): Promise<void>;
}

/**
 * Starts an Express 5 app that serves its own routes beside Switchboard.
 *
 * @example
 * const app = await startExpressApp({ port: 3000, adminApiKey: process.env.SWITCHBOARD_API_KEY });
 * await app.close();
 */
export async function startExpressApp(options: ExpressAppOptions = {}): Promise<RunningExpressApp> {
  const switchboard = createSwitchboard({
    oauth: options.adminApiKey ? { adminApiKey: options.adminApiKey } : {},
  });
  switchboard.start();

  // #region mount
  const app = express();
  // The usual body parsers: Switchboard rebuilds the JSON or form body they read (docs/node.md).
  app.use(express.json());
  app.use(express.urlencoded());
  app.get('/hello', (_req, res) => {
    res.json({ hello: 'from express' });
  });
  app.post('/echo', (req, res) => {
    res.json(req.body);
  });
  // Last: every other path goes to Switchboard, which routes on its own paths (/api/v1, /graphql …).
  app.use(createRequestListener(switchboard.fetch));
  // #endregion mount

  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(options.port ?? 3000, options.host ?? '127.0.0.1', (error) =>
      error ? reject(error) : resolve(listening),
    );
  });

  // #region websocket
  // GraphQL subscriptions over WebSocket (graphql-transport-ws on /graphql) on Express's server.
  const sockets = attachWebSockets(server, [graphqlWebSocketRoute(switchboard.graphqlWebSocket!)]);
  // #endregion websocket

  const { port } = server.address() as { port: number };
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    async close() {
      sockets.close();
      const closed = new Promise((resolve) => server.close(resolve));
      // Event streams (GraphQL over SSE) never end by themselves.
      server.closeAllConnections();
      await closed;
      await switchboard.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Without a key every call would be refused (401): one is generated and printed, as `npm start` does.
  const chosen = process.env.SWITCHBOARD_API_KEY;
  const adminApiKey = chosen || randomSecret('sbk_');
  const app = await startExpressApp({ port: Number(process.env.PORT ?? 3000), adminApiKey });
  console.log(`listening on ${app.url}`);
  console.log(`admin API key: ${chosen ? '(from SWITCHBOARD_API_KEY)' : adminApiKey}`);
  process.once('SIGINT', () => void app.close());
  process.once('SIGTERM', () => void app.close());
}

/**
 * Switchboard inside a Hono app on Node (@hono/node-server): the host's own routes first, then
 * Switchboard's fetch handler for every other path (`/api/v1`, `/graphql`, `/oauth`, `/.well-known`,
 * `/healthz` …). Both speak Web `Request`/`Response`, so the request is handed over as it is.
 *
 * Run it: `node --import tsx examples/frameworks/hono.ts` (it prints a generated admin API key), or with
 * `SWITCHBOARD_API_KEY=<32+ characters>` to choose the key.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import { createSwitchboard } from 'switchboard-kit';
import { randomSecret } from 'switchboard-kit/oauth';

/** Options of {@link startHonoApp}. */
export interface HonoAppOptions {
  /** 0 picks a free port. Default 3000. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** The host's admin API key (32+ characters), with every scope. */
  readonly adminApiKey?: string;
}

/** A running app: its address and a graceful `close`. */
export interface RunningHonoApp {
  /** e.g. `http://127.0.0.1:3000` */
  readonly url: string;
  /** Stops accepting, cuts open connections and event streams, then stops Switchboard's background work. */
  close(): Promise<void>;
}

/**
 * Starts a Hono app on Node that serves its own routes beside Switchboard.
 *
 * @example
 * const app = await startHonoApp({ port: 3000, adminApiKey: process.env.SWITCHBOARD_API_KEY });
 * await app.close();
 */
export async function startHonoApp(options: HonoAppOptions = {}): Promise<RunningHonoApp> {
  const switchboard = createSwitchboard({
    oauth: options.adminApiKey ? { adminApiKey: options.adminApiKey } : {},
  });
  switchboard.start();

  // #region mount
  const app = new Hono();
  app.get('/hello', (c) => c.json({ hello: 'from hono' }));
  app.post('/echo', async (c) => c.json(await c.req.json()));
  // Last: every other path goes to Switchboard, which routes on its own paths (/api/v1, /graphql …),
  // with the peer's address for the budgets of callers without credentials.
  app.all('*', (c) => switchboard.fetch(c.req.raw, { clientAddress: getConnInfo(c).remote.address }));
  // #endregion mount

  const host = options.host ?? '127.0.0.1';
  const { server, port } = await new Promise<{ server: Server; port: number }>((resolve) => {
    const server = serve(
      { fetch: app.fetch, port: options.port ?? 3000, hostname: host },
      (info: AddressInfo) => resolve({ server: server as Server, port: info.port }),
    );
  });
  return {
    url: `http://${host}:${port}`,
    async close() {
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
  const app = await startHonoApp({ port: Number(process.env.PORT ?? 3000), adminApiKey });
  console.log(`listening on ${app.url}`);
  console.log(`admin API key: ${chosen ? '(from SWITCHBOARD_API_KEY)' : adminApiKey}`);
  process.once('SIGINT', () => void app.close());
  process.once('SIGTERM', () => void app.close());
}

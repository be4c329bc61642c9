/**
 * Switchboard inside a Fastify 5 app: the host's own routes with Fastify's parsers, and Switchboard for
 * every other path (`/api/v1`, `/graphql`, `/oauth`, `/.well-known`, `/healthz` …) in a plugin of its own
 * that leaves bodies unread, so Switchboard streams them itself.
 *
 * Run it: `node --import tsx examples/frameworks/fastify.ts` (it prints a generated admin API key), or with
 * `SWITCHBOARD_API_KEY=<32+ characters>` to choose the key.
 */
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { createSwitchboard } from 'switchboard-kit';
import { createRequestListener } from 'switchboard-kit/node';
import { randomSecret } from 'switchboard-kit/oauth';

/** Options of {@link startFastifyApp}. */
export interface FastifyAppOptions {
  /** 0 picks a free port. Default 3000. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** The host's admin API key (32+ characters), with every scope. */
  readonly adminApiKey?: string;
}

/** A running app: its address and a graceful `close`. */
export interface RunningFastifyApp {
  /** e.g. `http://127.0.0.1:3000` */
  readonly url: string;
  /** Stops accepting, cuts open connections and event streams, then stops Switchboard's background work. */
  close(): Promise<void>;
}

/**
 * Starts a Fastify 5 app that serves its own routes beside Switchboard.
 *
 * @example
 * const app = await startFastifyApp({ port: 3000, adminApiKey: process.env.SWITCHBOARD_API_KEY });
 * await app.close();
 */
export async function startFastifyApp(options: FastifyAppOptions = {}): Promise<RunningFastifyApp> {
  const switchboard = createSwitchboard({
    oauth: options.adminApiKey ? { adminApiKey: options.adminApiKey } : {},
  });
  switchboard.start();

  // #region mount
  const app = Fastify({ forceCloseConnections: true });
  app.get('/hello', async () => ({ hello: 'from fastify' }));
  app.post('/echo', async (request) => request.body);

  const listener = createRequestListener(switchboard.fetch);
  await app.register(async (scope) => {
    // In this plugin only: no parser reads the body, Switchboard streams it.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.all('/*', async (request, reply) => {
      reply.hijack();
      await listener(request.raw, reply.raw);
    });
  });
  // #endregion mount

  await app.listen({ port: options.port ?? 3000, host: options.host ?? '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    async close() {
      // forceCloseConnections: event streams (GraphQL over SSE) never end by themselves.
      await app.close();
      await switchboard.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Without a key every call would be refused (401): one is generated and printed, as `npm start` does.
  const chosen = process.env.SWITCHBOARD_API_KEY;
  const adminApiKey = chosen || randomSecret('sbk_');
  const app = await startFastifyApp({ port: Number(process.env.PORT ?? 3000), adminApiKey });
  console.log(`listening on ${app.url}`);
  console.log(`admin API key: ${chosen ? '(from SWITCHBOARD_API_KEY)' : adminApiKey}`);
  process.once('SIGINT', () => void app.close());
  process.once('SIGTERM', () => void app.close());
}

/**
 * Consoles served over loopback without a browser: switchboards on one storage (the memory one shared
 * in process, or one PostgreSQL database), each on its own port, all with the same console secret.
 */
import {
  createSwitchboard,
  type Storage,
  type Switchboard,
  type SwitchboardOptions,
} from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';

export const ADMIN_KEY = 'sbk_console_sessions_admin_key_0123456789abcdef';
export const ADA = { email: 'ada@example.com', password: 'correct horse battery staple', id: 'cli_ada' };

export interface ConsoleInstance {
  readonly switchboard: Switchboard;
  readonly server: NodeServer;
  /** e.g. `http://127.0.0.1:40123/console` */
  readonly base: string;
}

/** A signed-in browser, as far as the console can tell: the session cookie and the forms' CSRF token. */
export interface Session {
  readonly cookie: string;
  readonly csrf: string;
}

/** Switchboards on `storage`, served on loopback; Ada signs in with her account, the admin key with its key. */
export async function startConsoles(
  storage: () => Storage | Promise<Storage>,
  count: number,
  overrides: Partial<SwitchboardOptions> = {},
): Promise<ConsoleInstance[]> {
  const instances: ConsoleInstance[] = [];
  for (let i = 0; i < count; i++) {
    const switchboard = createSwitchboard({
      storage: await storage(),
      graphql: false,
      oauth: {
        adminApiKey: ADMIN_KEY,
        signIn: {
          verifyPassword: async (email, password) =>
            email === ADA.email && password === ADA.password ? ADA.id : null,
        },
      },
      console: { secret: 'one secret for every instance', sessionCheckMs: 100 },
      ...overrides,
    });
    await switchboard.oauth!.ready;
    const server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    instances.push({ switchboard, server, base: `${server.url}/console` });
  }
  return instances;
}

export async function closeConsoles(instances: readonly ConsoleInstance[]): Promise<void> {
  for (const { switchboard, server } of instances) {
    await server.close();
    await switchboard.close();
  }
}

/** Signs in with a key (`{ api_key }`) or an account (`{ email, password }`); fails unless it worked. */
export async function signIn(base: string, form: Record<string, string>): Promise<Session> {
  const response = await fetch(`${base}/sign-in`, {
    method: 'POST',
    body: new URLSearchParams(form),
    redirect: 'manual',
  });
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}`);
  const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
  const page = await fetch(`${base}/`, { headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf) throw new Error('no CSRF token on the first page');
  return { cookie, csrf };
}

/** Posts a console form as the page would: the session's cookie and token, from the console's origin. */
export function post(
  base: string,
  path: string,
  session: Session,
  form: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: session.cookie, origin: new URL(base).origin },
    body: new URLSearchParams({ _csrf: session.csrf, ...form }),
  });
}

/** GETs a console page with the session's cookie, without following redirects. */
export function get(base: string, path: string, session: Session): Promise<Response> {
  return fetch(`${base}${path}`, { redirect: 'manual', headers: { cookie: session.cookie } });
}

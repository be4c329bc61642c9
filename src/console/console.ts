/**
 * The operator console: server-rendered pages over the same admin services as the REST and GraphQL
 * admin operations (webhooks, API keys, OAuth clients, grants), behind a sign-in with an admin API key.
 * Forms post and redirect; times are shown in UTC; a little script streams live events.
 */
import { encodeHexLowerCase } from '@oslojs/encoding';
import { type Authenticate, anonymousPrincipal, type Principal } from '../core/auth.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import type { EventBus } from '../core/event-bus.js';
import type { Runtime } from '../core/runtime.js';
import type { Stores } from '../core/storage/index.js';
import { createCredentialWatch } from '../http/credential-watch.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { ConnectionInfo, RequestContext } from '../http/request-context.js';
import { assetResponse, brandingOf, type Look, resolveLook } from '../internal/look/index.js';
import { ADMIN_SCOPE, OAUTH_ADMIN_SCOPES } from '../oauth/admin-routes.js';
import type { OAuthAdmin } from '../oauth/admin-service.js';
import { hashSecret } from '../oauth/secrets.js';
import type { SignIn } from '../oauth/server-options.js';
import type { WebhookAdmin } from '../webhooks/admin-service.js';
import { WEBHOOK_ADMIN_SCOPES, WEBHOOK_READ_SCOPE } from '../webhooks/scopes.js';
import { htmlResponse, readForm, seeOther } from './answers.js';
import { SCRIPT, STYLE } from './assets.js';
import { accessRoutes } from './pages/access.js';
import { accountRoutes } from './pages/account.js';
import { activityRoutes } from './pages/activity.js';
import { oauthClientRoutes } from './pages/oauth-clients.js';
import { signInPage } from './pages/sign-in.js';
import { webhookRoutes } from './pages/webhooks.js';
import type { ConsoleRoute } from './route.js';
import { createConsoleRouter, type SignedIn } from './router.js';
import { createSessions } from './session.js';

/**
 * What the console reads from the runtime: the storage its sessions are kept in (hashed: every instance
 * on this storage opens a session until it is signed out of on any of them), its clock and logger.
 */
export interface ConsoleRuntime extends Pick<Runtime, 'clock' | 'logger' | 'look'> {
  readonly storage: Pick<Stores, 'consoleSessions'>;
}

/** Settings of {@link createConsole}: what `createSwitchboard`'s `console` takes. */
export interface ConsoleConfig {
  /**
   * Seals session cookies. Give every instance the same one so any of them opens any session;
   * without it a random key is made on first use and sessions end with the process.
   */
  readonly secret?: string;
  /** Where the console is mounted (default `/console`). */
  readonly basePath?: string;
  /** How long a sign-in lasts (default 8 hours). */
  readonly sessionTtlMs?: number;
  /**
   * How often the session of each open live stream is checked again (default 5 s): how long a stream
   * outlives a session ended elsewhere (signed out on another instance, its key revoked).
   */
  readonly sessionCheckMs?: number;
  /** Whether a signed-in user may operate the console (default: nobody; operators use admin keys). */
  readonly isAdmin?: (userId: string) => boolean | Promise<boolean>;
}

/** Options of {@link createConsole}: its settings and the parts of other blocks it drives. */
export interface ConsoleOptions extends ConsoleConfig {
  /** Checks the API key an operator signs in with (and again on every request). */
  readonly authenticate: Authenticate;
  /** Webhook management; without it the webhook pages are left out. */
  readonly webhooks?: WebhookAdmin;
  /** API keys, OAuth clients and grants; without it those pages are left out. */
  readonly oauth?: OAuthAdmin;
  /** The live activity page listens here. */
  readonly bus?: EventBus;
  /**
   * How users sign in with their account (the authorization server's `signIn`, whose `verifyPassword`
   * is behind its lockout): then a user sees the applications they authorized and revokes them, and a
   * user `isAdmin` names is an operator. A locked-out account is refused with 429 and a message
   * saying when to try again.
   */
  readonly signIn?: SignIn;
  /** Budgets: each sign-in post takes one from its address's `sign-in` budget (429 beyond it). */
  readonly rateLimit?: RateLimiter;
  /** The scopes API keys and OAuth clients may be given (default: the authorization server's). */
  readonly scopes?: readonly string[];
  /**
   * The people users are, by id (`createSwitchboard` reads its clients): the console shows their
   * names and e-mail addresses, not ids, and finds grants by them. Without it, ids are shown.
   */
  readonly people?: (ids: readonly string[]) => Promise<ReadonlyMap<string, Person>>;
}

/** A user as the console shows them. */
export interface Person {
  readonly name: string;
  readonly email?: string;
}

/** The console as a fetch handler, mounted on {@link ConsoleHandler.basePath}. */
export interface ConsoleHandler {
  /** Serves a request; `info` gives the peer's address, for the budgets of callers without a session. */
  (request: Request, info?: ConnectionInfo): Promise<Response>;
  readonly basePath: string;
  /**
   * Ends every console session of a user, on every instance on the storage: call it when you disable
   * their account or change its password. Their pages refuse them at once, their live streams within
   * `sessionCheckMs`.
   */
  endSessions(userId: string): Promise<void>;
}

const ADMIN_SCOPES = [...Object.keys(WEBHOOK_ADMIN_SCOPES), ...Object.keys(OAUTH_ADMIN_SCOPES)];

/**
 * Creates the console.
 *
 * @example
 * const console = createConsole(runtime, { authenticate, webhooks: webhooks.admin, oauth: oauth.admin, bus });
 * // mount: requests under console.basePath go to console(request)
 */
export function createConsole(runtime: ConsoleRuntime, options: ConsoleOptions): ConsoleHandler {
  const base = (options.basePath ?? '/console').replace(/\/+$/, '');
  const { clock, logger } = runtime;
  const ttl = options.sessionTtlMs ?? 8 * 3_600_000;
  const sessions = createSessions(options.secret, base);
  const stored = runtime.storage.consoleSessions;
  const look = resolveLook(runtime.look);
  const assets = { css: STYLE.name, js: SCRIPT.name, look: brandingOf(look, `${base}/assets`) };
  const withAccounts = Boolean(options.signIn?.verifyPassword && options.oauth);
  // A live stream outlives the request that checked its session: the session is checked while it lasts.
  const streams = createCredentialWatch({
    async authenticate(request) {
      const who = await signedIn(request);
      if (!who) throw new SwitchboardError('unauthorized', 'The console session has ended.');
      return who.principal;
    },
    intervalMs: options.sessionCheckMs ?? 5_000,
    logger,
  });

  /** The principal of an API key, when it is an admin key that is still valid. */
  async function operatorWithKey(request: Request, apiKey: string): Promise<Principal | undefined> {
    const principal = await options
      .authenticate(new Request(request.url, { headers: { authorization: `Bearer ${apiKey}` } }))
      .catch(() => undefined);
    return principal && isOperator(principal) ? principal : undefined;
  }

  /**
   * Who is signed in: a session still in storage, with the sealed key checked again now, or the user
   * (an operator when `isAdmin` says so).
   */
  async function signedIn(request: Request): Promise<SignedIn | undefined> {
    const session = await sessions.open(request, clock.now());
    if (!session) return undefined;
    // Signed out (or ended) on any instance: gone from storage. Its end is the sealed `expiresAt`.
    if (!(await stored.get(hashSecret(session.id)))) return undefined;
    if (session.userId !== undefined) {
      const admin = (await options.isAdmin?.(session.userId)) ?? false;
      const scopes = new Set(admin ? ADMIN_SCOPES : []);
      return {
        session,
        principal: { kind: 'user', subject: session.userId, userId: session.userId, scopes },
      };
    }
    const principal = await operatorWithKey(request, session.apiKey!);
    return principal && { session, principal };
  }

  /** Sign-in, answered without a session: the page, and its post (a key, or an e-mail and password). */
  async function signIn(context: RequestContext): Promise<Response> {
    const { request } = context;
    const view = { base, assets, accounts: withAccounts };
    if (request.method === 'GET') return htmlResponse(200, signInPage(view));
    // Another site may not sign a browser in (to an account of its choosing).
    const origin = request.headers.get('origin');
    if (origin && origin !== new URL(request.url).origin) return htmlResponse(403, signInPage(view));
    const form = await readForm(request);
    const text = (name: string) => (form.get(name) ?? '').trim();
    const started = async (data: { apiKey?: string; userId?: string }) => {
      const id = encodeHexLowerCase(crypto.getRandomValues(new Uint8Array(32)));
      const now = clock.now();
      const expiresAt = now + ttl;
      await stored.insert({ idHash: hashSecret(id), userId: data.userId ?? null, createdAt: now, expiresAt });
      const sealed = await sessions.seal({ ...data, expiresAt, id });
      return seeOther(`${base}/`, { 'set-cookie': sessions.cookie(sealed, request, Math.floor(ttl / 1000)) });
    };
    try {
      await options.rateLimit?.take(context, anonymousPrincipal, 'sign-in');
      if (form.has('email') && withAccounts) {
        // The same check the authorization server's sign-in page makes, behind the same lockout.
        const userId = await options.signIn!.verifyPassword!(text('email'), form.get('password') ?? '');
        if (userId) return started({ userId });
        logger.log('info', 'console account sign-in refused');
        return htmlResponse(
          401,
          signInPage({ ...view, error: 'That e-mail and password do not match an account.' }),
        );
      }
    } catch (error) {
      if (!isSwitchboardError(error) || error.code !== 'rate_limited') throw error;
      logger.log('info', 'console sign-in refused: too many attempts');
      return htmlResponse(429, signInPage({ ...view, error: error.message }), {
        'retry-after': String(error.retryAfter ?? 1),
      });
    }
    const apiKey = text('api_key');
    if (!apiKey || !(await operatorWithKey(request, apiKey))) {
      logger.log('info', 'console sign-in refused');
      return htmlResponse(
        401,
        signInPage({ ...view, error: 'That key is not an admin API key, or it is revoked.' }),
      );
    }
    return started({ apiKey });
  }

  /** The console's own routes beside its pages': its home, and sign-out. */
  const own: ConsoleRoute[] = [
    {
      method: 'GET',
      path: '/',
      scope: null,
      async handle({ principal, redirect }) {
        if (!isOperator(principal)) return redirect('/me');
        return redirect(options.webhooks ? '/webhooks' : options.oauth ? '/api-keys' : '/activity');
      },
    },
    {
      method: 'POST',
      path: '/sign-out',
      scope: null,
      async handle({ request }) {
        // Ended in storage for every instance; this one's live streams of the session end now.
        const session = (await sessions.open(request, clock.now()))!;
        await stored.delete(hashSecret(session.id));
        streams.end(session.id);
        return seeOther(`${base}/sign-in`, { 'set-cookie': sessions.cookie('', request, 0) });
      },
    },
  ];

  // The scopes API keys and OAuth clients may be given.
  const grantable = options.scopes ?? Object.keys(options.oauth?.scopes ?? {});
  const handler = createConsoleRouter({
    base,
    assets,
    routes: [
      ...own,
      ...(options.webhooks ? webhookRoutes(options.webhooks) : []),
      ...(options.oauth ? accessRoutes(options.oauth, grantable, options.people) : []),
      ...(options.oauth ? oauthClientRoutes(options.oauth, grantable) : []),
      ...(options.bus ? activityRoutes(options.bus) : []),
      ...(options.oauth ? accountRoutes(options.oauth) : []),
    ],
    open: [
      { method: 'GET', path: '/sign-in', handle: signIn },
      { method: 'POST', path: '/sign-in', handle: signIn },
      { method: 'GET', path: '/assets/{name}', handle: async (_, { name }) => asset(look, name ?? '') },
    ],
    sessions,
    signedIn,
    sections,
    async describe({ principal }) {
      if (principal.userId !== undefined) return `Signed in as ${await nameOf(principal.userId)}`;
      const key = (await options.oauth?.listApiKeys())?.find((k) => k.id === principal.subject);
      return key ? `Signed in with the API key ${key.name}` : `Signed in as ${principal.subject}`;
    },
    ...(options.oauth ? { scopeWords: options.oauth.scopes } : {}),
    watch({ session }, request, ended) {
      const watched = {
        request: () => new Request(request.url, { headers: { cookie: request.headers.get('cookie') ?? '' } }),
        revoked: ended,
      };
      streams.watch(session.id, watched);
      return () => streams.unwatch(session.id, watched);
    },
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    accounts: withAccounts,
    clock,
    logger,
  });

  /** A user's name and e-mail address, or their id when nobody says who they are. */
  async function nameOf(userId: string): Promise<string> {
    const person = (await options.people?.([userId]))?.get(userId);
    return person ? `${person.name}${person.email ? ` (${person.email})` : ''}` : userId;
  }

  /** The navigation a principal gets: what its scopes open, and its own page when it is a user. */
  function sections(principal: Principal): string[] {
    const sections: string[] = [];
    if (options.webhooks && principal.scopes.has(WEBHOOK_READ_SCOPE))
      sections.push('webhooks', 'event-types');
    if (options.oauth && principal.scopes.has(ADMIN_SCOPE))
      sections.push('api-keys', 'oauth-clients', 'grants');
    if (options.bus && principal.scopes.has(WEBHOOK_READ_SCOPE)) sections.push('activity');
    if (options.oauth && principal.userId !== undefined) sections.push('me');
    return sections;
  }

  return Object.assign(handler, {
    basePath: base,
    async endSessions(userId: string) {
      await stored.deleteByUser(userId);
    },
  });
}

/** Whether a principal holds an admin scope, which is what operating the console takes. */
function isOperator(principal: Principal): boolean {
  return ADMIN_SCOPES.some((s) => principal.scopes.has(s));
}

/** One of the console's files (or the look's style sheet), by its content-hashed name: cached for good. */
function asset(look: Look, name: string): Response {
  const file = [look.stylesheet, STYLE, SCRIPT].find((a) => a.name === name);
  if (!file) throw new SwitchboardError('not_found', `The console has no file ${name}.`);
  return assetResponse(file);
}

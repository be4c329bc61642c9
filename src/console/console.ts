/**
 * The operator console: server-rendered pages over the same admin services as the REST and GraphQL
 * admin operations (webhooks, API keys, OAuth clients, grants), behind a sign-in with an admin API key.
 * Forms post and redirect; a little script shows times in the operator's zone and streams live events.
 */
import { type Authenticate, type Principal, SCOPES } from '../core/auth.js';
import { isSwitchboardError } from '../core/errors.js';
import type { EventBus } from '../core/event-bus.js';
import { type Clock, type Logger, silentLogger, systemClock } from '../core/runtime.js';
import type { OAuthAdmin } from '../oauth/admin-service.js';
import type { WebhookAdmin } from '../webhooks/admin-service.js';
import { SCRIPT, STYLE } from './assets.js';
import { esc, page } from './html.js';
import { accessRoutes } from './pages/access.js';
import { activityRoutes } from './pages/activity.js';
import { signInPage } from './pages/sign-in.js';
import { webhookRoutes } from './pages/webhooks.js';
import type { ConsoleRoute, PageContext } from './route.js';
import { createSessions, type SessionData } from './session.js';

/** Options of {@link createConsole}. */
export interface ConsoleOptions {
  /** Checks the API key an operator signs in with (and again on every request). */
  readonly authenticate: Authenticate;
  /** Webhook management; without it the webhook pages are left out. */
  readonly webhooks?: WebhookAdmin;
  /** API keys, OAuth clients and grants; without it those pages are left out. */
  readonly oauth?: OAuthAdmin;
  /** The live activity page listens here. */
  readonly bus?: EventBus;
  /** The scopes API keys and OAuth clients may be given (default: the built-in catalogue). */
  readonly scopes?: readonly string[];
  /**
   * Seals session cookies. Give every instance the same one so any of them opens any session;
   * without it a random key is made on first use and sessions end with the process.
   */
  readonly secret?: string;
  /** Where the console is mounted (default `/console`). */
  readonly basePath?: string;
  /** How long a sign-in lasts (default 8 hours). */
  readonly sessionTtlMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** The console as a fetch handler, mounted on {@link ConsoleHandler.basePath}. */
export interface ConsoleHandler {
  (request: Request): Promise<Response>;
  readonly basePath: string;
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const ADMIN_SCOPES = ['admin.webhooks.read', 'admin.webhooks.write', 'admin.oauth.write'];

/**
 * Creates the console.
 *
 * @example
 * const console = createConsole({ authenticate, webhooks: webhooks.admin, oauth: oauth.admin, bus });
 * // mount: requests under console.basePath go to console(request)
 */
export function createConsole(options: ConsoleOptions): ConsoleHandler {
  const base = (options.basePath ?? '/console').replace(/\/+$/, '');
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const ttl = options.sessionTtlMs ?? 8 * 3_600_000;
  const sessions = createSessions(options.secret, base);
  const assets = { css: STYLE.name, js: SCRIPT.name };
  const routes: ConsoleRoute[] = [
    ...(options.webhooks ? webhookRoutes(options.webhooks) : []),
    ...(options.oauth ? accessRoutes(options.oauth, options.scopes ?? Object.keys(SCOPES)) : []),
    ...(options.bus ? activityRoutes(options.bus) : []),
  ];

  const html = (status: number, body: string, headers: Record<string, string> = {}) =>
    new Response(body, {
      status,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': CSP,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'same-origin',
        ...headers,
      },
    });
  const redirect = (location: string, headers: Record<string, string> = {}) =>
    new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...headers } });

  /** The signed-in operator: the sealed key, checked again now. */
  async function signedIn(
    request: Request,
  ): Promise<{ session: SessionData; principal: Principal } | undefined> {
    const session = await sessions.open(request, clock.now());
    if (!session) return undefined;
    const principal = await options
      .authenticate(new Request(request.url, { headers: { authorization: `Bearer ${session.apiKey}` } }))
      .catch(() => undefined);
    if (!principal || !ADMIN_SCOPES.some((s) => principal.scopes.has(s))) return undefined;
    return { session, principal };
  }

  async function signIn(request: Request): Promise<Response> {
    if (request.method === 'GET') return html(200, signInPage({ base, assets }));
    const form = await request.formData().catch(() => undefined);
    const apiKey = String(form?.get('api_key') ?? '').trim();
    const principal = apiKey
      ? await options
          .authenticate(new Request(request.url, { headers: { authorization: `Bearer ${apiKey}` } }))
          .catch(() => undefined)
      : undefined;
    if (!principal || !ADMIN_SCOPES.some((s) => principal.scopes.has(s))) {
      logger.log('info', 'console sign-in refused');
      return html(
        401,
        signInPage({ base, assets, error: 'That key is not an admin API key, or it is revoked.' }),
      );
    }
    const nonce = encodeNonce(crypto.getRandomValues(new Uint8Array(16)));
    const sealed = await sessions.seal({ apiKey, expiresAt: clock.now() + ttl, nonce });
    return redirect(`${base}/`, { 'set-cookie': sessions.cookie(sealed, request, Math.floor(ttl / 1000)) });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.slice(base.length) || '/';
    if (request.method === 'GET' && path.startsWith('/assets/')) return asset(path.slice('/assets/'.length));
    if (path === '/sign-in' && (request.method === 'GET' || request.method === 'POST'))
      return signIn(request);

    const who = await signedIn(request);
    if (!who) {
      if (request.method === 'GET' && !path.startsWith('/activity/stream'))
        return redirect(`${base}/sign-in`);
      return html(401, signInPage({ base, assets, error: 'Your session has ended: sign in again.' }));
    }
    const { session, principal } = who;
    const csrf = await sessions.csrfToken(session);
    let form: FormData | undefined;
    if (request.method === 'POST') {
      // A change needs the session's token, and (when the browser says) a page of this origin.
      const origin = request.headers.get('origin');
      form = await request.formData().catch(() => undefined);
      const token = form?.get('_csrf');
      if (
        (origin && origin !== url.origin) ||
        !(await sessions.checkCsrf(session, token ? String(token) : undefined))
      )
        return html(
          403,
          page(
            { base, title: 'Not done', assets },
            '<p>The form had expired or came from another site. Go back, reload the page and try again.</p>',
          ),
        );
    }
    if (path === '/sign-out' && request.method === 'POST')
      return redirect(`${base}/sign-in`, { 'set-cookie': sessions.cookie('', request, 0) });
    if (path === '/' && request.method === 'GET')
      return redirect(`${base}/${options.webhooks ? 'webhooks' : options.oauth ? 'api-keys' : 'activity'}`);

    for (const route of routes) {
      if (route.method !== request.method) continue;
      const match = route.pattern.exec(path);
      if (!match) continue;
      const ctx: PageContext = {
        base,
        url,
        request,
        principal,
        csrf,
        form,
        params: match.groups ?? {},
        now: clock.now(),
        render: (title, body, extra = {}) =>
          html(
            extra.status ?? 200,
            page(
              {
                base,
                title,
                assets,
                nav: { current: route.section, csrf, who: `Signed in as ${principal.subject}` },
                ...(extra.notice ? { notice: extra.notice } : {}),
                ...(extra.error ? { error: extra.error } : {}),
              },
              body,
            ),
          ),
        redirect: (to, notice) =>
          redirect(
            `${base}${to}${notice ? `${to.includes('?') ? '&' : '?'}notice=${encodeURIComponent(notice)}` : ''}`,
          ),
      };
      const missing = route.scope && !principal.scopes.has(route.scope);
      if (missing)
        return ctx.render(
          'Not allowed',
          `<p>This needs the scope <code>${esc(route.scope)}</code>, which your key does not have.</p>`,
          { status: 403 },
        );
      try {
        return await route.handle(ctx);
      } catch (error) {
        if (!isSwitchboardError(error)) throw error;
        const details = error.details.length
          ? `<ul>${error.details.map((d) => `<li><code>${esc(d.field)}</code>: ${esc(d.message)}</li>`).join('')}</ul>`
          : '';
        const back = request.headers.get('referer') ?? `${base}/`;
        return ctx.render('Not done', `${details}<p><a href="${esc(back)}">Go back</a> and try again.</p>`, {
          status: error.status,
          error: error.message,
        });
      }
    }
    return html(
      404,
      page(
        { base, title: 'Not found', assets },
        `<p>Nothing is here. <a href="${base}/">Back to the console</a>.</p>`,
      ),
    );
  }

  function asset(name: string): Response {
    const file = [STYLE, SCRIPT].find((a) => a.name === name);
    if (!file) return new Response('Not found', { status: 404 });
    return new Response(file.body, {
      headers: {
        'content-type': file.type,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      },
    });
  }

  const handler = async (request: Request): Promise<Response> => {
    try {
      return await handle(request);
    } catch (error) {
      logger.log('error', 'console request failed', { error: String(error) });
      return html(
        500,
        page(
          { base, title: 'Something went wrong', assets },
          '<p>The console could not do that. It has been logged; try again.</p>',
        ),
      );
    }
  };
  return Object.assign(handler, { basePath: base });
}

function encodeNonce(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

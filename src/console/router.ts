/**
 * The console's request flow over the shared route table (http/route-table.ts, the one every HTTP
 * surface routes with): route → session → budget → form and its CSRF token → scope → page. What
 * fails is answered one way: a page in the console's look, or problem+json for a caller that reads no
 * HTML (the live feed's script, a client asking for JSON). 404, and 405 with `Allow`, come from the
 * table.
 *
 * The console's routes are pages for people, not API operations: they are in no OpenAPI document.
 */
import { anonymousPrincipal, type Principal, requireScope } from '../core/auth.js';
import { ERROR_CATALOGUE } from '../core/error-catalogue.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import type { Clock, Logger } from '../core/runtime.js';
import { renderProblem, routeNotFound } from '../http/problems.js';
import { type RateHeaders, type RateLimiter, rateHeadersOf } from '../http/rate-limit.js';
import { decodeParams } from '../http/request.js';
import { type ConnectionInfo, type RequestContext, requestContext } from '../http/request-context.js';
import { createRouteTable, routePathOf } from '../http/route-table.js';
import { html } from '../internal/html.js';
import { htmlResponse, readForm, seeOther } from './answers.js';
import { type FormRefusal, refusalOf } from './forms.js';
import { type AssetNames, type Frame, page, shownOnce } from './html.js';
import { signInPage } from './pages/sign-in.js';
import type { ConsoleRoute, OpenRoute, PageContext, ShownSecret } from './route.js';
import type { SessionData, Sessions } from './session.js';
import { carriedSecret, carrySecret, dropSecret } from './shown-once.js';

/** A request's signed-in principal and the session it came with. */
export interface SignedIn {
  readonly session: SessionData;
  readonly principal: Principal;
}

/** What {@link createConsoleRouter} serves, and the console's parts it asks. */
export interface ConsoleRouterOptions {
  readonly base: string;
  readonly assets: AssetNames;
  /** Pages and actions for a signed-in principal. */
  readonly routes: readonly ConsoleRoute[];
  /** Answered without a session: the sign-in page and the assets. */
  readonly open: readonly OpenRoute[];
  readonly sessions: Pick<Sessions, 'csrfToken' | 'checkCsrf' | 'sealText' | 'openText' | 'cookie'>;
  /** Who the request's session is, if it is still open. */
  signedIn(request: Request): Promise<SignedIn | undefined>;
  /** Who is signed in, for the frame: `Signed in as Ada Lovelace (ada@example.com)`. */
  describe(who: SignedIn): Promise<string>;
  /** The scopes in words, for telling a person what they may not do. */
  readonly scopeWords?: Readonly<Record<string, string>>;
  /** The navigation sections a principal gets. */
  sections(principal: Principal): readonly string[];
  /** See {@link PageContext.watchSession}. */
  watch(who: SignedIn, request: Request, ended: () => void): () => void;
  /** Budgets: a signed-in principal's reads and writes, and an address's requests nothing serves. */
  readonly rateLimit?: RateLimiter;
  /** Whether the sign-in page (answered to a post whose session ended) offers accounts too. */
  readonly accounts: boolean;
  readonly clock: Clock;
  readonly logger: Logger;
}

type Entry = { readonly page: ConsoleRoute } | { readonly open: OpenRoute };

/** Where a failure happened, for answering it in the right look. */
interface Failed {
  readonly route?: ConsoleRoute;
  /** The frame's navigation, when someone is signed in. */
  readonly nav?: Frame['nav'];
  /** The budget the request was charged to, whose fields every answer carries. */
  readonly limits?: RateHeaders | undefined;
  readonly headers?: Readonly<Record<string, string>>;
  /** Who was refused, for saying it in their terms (a person is not told about keys). */
  readonly principal?: Principal;
}

/**
 * The console as one fetch handler over its route definitions.
 *
 * @example
 * const handle = createConsoleRouter({ base: '/console', routes: webhookRoutes(admin), open: [], … });
 */
export function createConsoleRouter(
  options: ConsoleRouterOptions,
): (request: Request, info?: ConnectionInfo) => Promise<Response> {
  const { base, assets, logger } = options;
  const table = createRouteTable<Entry>();
  const add = (method: string, path: string, entry: Entry): void => {
    table.add(method, path, entry);
    if (method === 'GET') table.add('HEAD', path, entry);
  };
  for (const route of options.open) add(route.method, route.path, { open: route });
  for (const route of options.routes) add(route.method, route.path, { page: route });

  async function routed(context: RequestContext): Promise<Response> {
    const { request } = context;
    const path = routePathOf(request.url, base);
    const match = path === undefined ? undefined : table.match(request.method, path);
    if (!match) return unrouted(context, path === undefined ? [] : table.methodsAt(path));
    const { entry, params } = match;
    if ('open' in entry) {
      context.route = `${base}${entry.open.path}`;
      return entry.open.handle(context, params);
    }
    context.route = `${base}${entry.page.path}`;
    return serve(entry.page, context, params);
  }

  /** 404, or 405 (`OPTIONS` 204) with `Allow` when the path serves other methods. */
  async function unrouted(context: RequestContext, methods: readonly string[]): Promise<Response> {
    const { request } = context;
    const { pathname } = new URL(request.url);
    const allow = methods.length ? [...methods, 'OPTIONS'].join(', ') : undefined;
    if (allow && request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { allow } });
    // Probing paths is not free: charged to the address, as the API charges its unrouted requests.
    const limits = await charge(context, anonymousPrincipal);
    const error = allow
      ? new SwitchboardError(
          'method_not_allowed',
          `${request.method} is not served at ${pathname}; use ${allow}.`,
        )
      : routeNotFound(pathname);
    return failure(error, request, { limits, ...(allow ? { headers: { allow } } : {}) });
  }

  async function serve(
    route: ConsoleRoute,
    context: RequestContext,
    raw: Readonly<Record<string, string>>,
  ): Promise<Response> {
    const { request } = context;
    const who = await options.signedIn(request);
    if (!who) {
      const read = request.method === 'GET' || request.method === 'HEAD';
      if (read && route.answers !== 'event-stream') return seeOther(`${base}/sign-in`);
      const ended = new SwitchboardError('unauthorized', 'Your session has ended: sign in again.');
      return failure(ended, request, { route });
    }
    const { session, principal } = who;
    const csrf = await options.sessions.csrfToken(session);
    let limits: RateHeaders | undefined;
    let nav: Frame['nav'] | undefined;
    let shown: ShownSecret | undefined;
    try {
      nav = {
        ...(route.section ? { current: route.section } : {}),
        csrf,
        who: await options.describe(who),
        sections: options.sections(principal),
      };
      limits = await charge(context, principal);
      if (request.method === 'GET') shown = await carriedSecret(options.sessions, session, request);
      const params = decodeParams(raw, request.url);
      const url = new URL(request.url);
      let form: URLSearchParams | undefined;
      if (request.method === 'POST') {
        // A change needs the session's token, and (when the browser says) a page of this origin.
        const origin = request.headers.get('origin');
        form = await readForm(request);
        if (
          (origin && origin !== url.origin) ||
          !(await options.sessions.checkCsrf(session, form.get('_csrf') ?? undefined))
        )
          throw new SwitchboardError(
            'forbidden',
            'The form had expired or came from another site. Go back, reload the page and try again.',
          );
      }
      mayUse(route, principal);
      const frameNav = nav;
      const ctx: PageContext = {
        base,
        url,
        request,
        principal,
        csrf,
        form,
        params,
        now: options.clock.now(),
        watchSession: (ended) => options.watch(who, request, ended),
        render: (title, body, extra = {}) =>
          htmlResponse(
            extra.status ?? 200,
            page(
              {
                base,
                title,
                assets,
                nav: frameNav,
                ...(extra.notice ? { notice: extra.notice } : {}),
                ...(extra.error ? { error: extra.error } : {}),
              },
              // The secret a redirect carried here, above the page, this once.
              shown ? html`${shownOnce(shown.label, shown.value)}${body}` : body,
            ),
            // Read: the cookie goes, so a reload does not show it again.
            shown ? { 'set-cookie': dropSecret(options.sessions, request) } : {},
          ),
        redirect: (to, notice) => seeOther(`${base}${withNotice(to, notice)}`),
        redirectShowing: async (to, secret, notice) =>
          seeOther(`${base}${withNotice(to, notice)}`, {
            'set-cookie': await carrySecret(options.sessions, session, request, secret),
          }),
      };
      const response = await handled(route, ctx);
      return limits ? withLimits(response, limits) : response;
    } catch (error) {
      return failure(error, request, { route, ...(nav ? { nav } : {}), limits, principal });
    }
  }

  /**
   * The route's answer; a form the service refused is shown again by its page (422; 409 for a
   * conflict), errors beside the fields and the values kept, when the route says how.
   */
  async function handled(route: ConsoleRoute, ctx: PageContext): Promise<Response> {
    try {
      return await route.handle(ctx);
    } catch (error) {
      const refused = route.refused;
      if (!refused || !ctx.form || !isSwitchboardError(error) || ![400, 409, 422].includes(error.status))
        throw error;
      const refusal: FormRefusal = refusalOf(error, ctx.form, refused.fields);
      const shown = await refused.show(ctx, refusal);
      const status = error.status === 409 ? 409 : 422;
      return new Response(shown.body, { status, headers: shown.headers });
    }
  }

  /** Takes from the caller's budget (reads: GET and HEAD; writes: the rest); 429 beyond it. */
  async function charge(context: RequestContext, principal: Principal): Promise<RateHeaders | undefined> {
    const read = context.request.method === 'GET' || context.request.method === 'HEAD';
    return options.rateLimit?.take(context, principal, read ? 'read' : 'write');
  }

  /**
   * The one answer to what failed: a page in the console's frame (the sign-in page for an ended
   * session), or problem+json for a caller of no HTML. Anything but a SwitchboardError is logged and
   * answered without its detail.
   */
  function failure(error: unknown, request: Request, at: Failed = {}): Response {
    if (!isSwitchboardError(error))
      logger.log('error', 'console request failed', {
        route: at.route ? `${at.route.method} ${at.route.path}` : undefined,
        error: String(error),
        stack: (error as Error | undefined)?.stack,
      });
    const limits = rateHeadersOf(error) ?? at.limits;
    const headers: Record<string, string> = { ...at.headers, ...limits };
    const asPage = at.route ? at.route.answers !== 'event-stream' : readsHtml(request);
    if (!asPage) return renderProblem(error, { headers: { ...headers, 'cache-control': 'no-store' } });
    const known = isSwitchboardError(error)
      ? error
      : new SwitchboardError('internal', 'The console could not do that. It has been logged; try again.');
    if (known.retryAfter !== undefined) headers['retry-after'] = String(known.retryAfter);
    if (known.status === 401)
      return htmlResponse(
        401,
        signInPage({ base, assets, accounts: options.accounts, error: known.message }),
        headers,
      );
    // A missing scope, said to a person as what they may not do, to a key as what it lacks.
    const scope = known.status === 403 ? known.scope : undefined;
    const message =
      scope === undefined
        ? known.message
        : at.principal?.userId !== undefined
          ? `You are not allowed to ${lowerFirst(options.scopeWords?.[scope] ?? `use ${scope}`)}: ask an operator if you need to.`
          : `The API key you signed in with does not have the scope ${scope}; sign in with a key that has it.`;
    // A refused form links back to the page it was on (one of the console's own, nothing else).
    const referer = request.headers.get('referer');
    const back =
      request.method === 'POST' &&
      known.status < 500 &&
      referer?.startsWith(`${new URL(request.url).origin}${base}/`)
        ? referer
        : null;
    // Field errors of a refused form are listed; other details (a missing scope) are in the message.
    const fieldErrors = known.status === 400 || known.status === 422 ? known.details : [];
    const body = html`${fieldErrors.length > 0 && html`<ul>${fieldErrors.map((d) => html`<li>${d.message}</li>`)}</ul>`}
<p>${back ? html`<a href="${back}">Go back</a> and try again.` : html`<a href="${base}/">Back to the console</a>.`}</p>`;
    const title = known.status === 404 ? 'Page not found' : ERROR_CATALOGUE[known.code].title;
    return htmlResponse(
      known.status,
      page(
        {
          base,
          title,
          assets,
          ...(at.nav ? { nav: at.nav } : {}),
          error: message,
        },
        body,
      ),
      headers,
    );
  }

  return async (request, info) => {
    let response: Response;
    try {
      response = await routed(requestContext(request, info));
    } catch (error) {
      response = failure(error, request);
    }
    if (request.method !== 'HEAD' || !response.body) return response;
    await response.body.cancel();
    return new Response(null, { status: response.status, headers: response.headers });
  };
}

/** A console path with the notice the next page shows. */
function withNotice(to: string, notice: string | undefined): string {
  return notice ? `${to}${to.includes('?') ? '&' : '?'}notice=${encodeURIComponent(notice)}` : to;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** Whether a scope-checked route lets the principal in; `forbidden` (or `unauthorized`) if not. */
function mayUse(route: ConsoleRoute, principal: Principal): void {
  if (route.scope === 'user') {
    if (principal.userId === undefined)
      throw new SwitchboardError('forbidden', 'This page is for a user signed in with their account.');
  } else if (route.scope !== null) requireScope(principal, route.scope);
}

/**
 * Whether a request that matched no route reads HTML: a browser's navigation does, and so does a
 * caller that states no preference; one that asks only for JSON or an event stream gets problem+json.
 */
function readsHtml(request: Request): boolean {
  const accept = request.headers.get('accept');
  return accept === null || accept.includes('text/html') || accept.includes('*/*');
}

/** The RateLimit fields of the budget a request was charged to, on the page it is answered with. */
function withLimits(response: Response, limits: RateHeaders): Response {
  try {
    response.headers.set('ratelimit-policy', limits['ratelimit-policy']);
    response.headers.set('ratelimit', limits.ratelimit);
    return response;
  } catch {
    // A response with immutable headers (Response.redirect): copied first.
    const copy = new Response(response.body, response);
    copy.headers.set('ratelimit-policy', limits['ratelimit-policy']);
    copy.headers.set('ratelimit', limits.ratelimit);
    return copy;
  }
}

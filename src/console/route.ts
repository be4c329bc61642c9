/**
 * What a console route is: a definition (method, path, who may use it, the navigation section it
 * belongs to) and a handler. The console puts them into the shared route table (http/route-table.ts),
 * so a new page, or a confirmation step before an action, is one more definition in a page's list.
 */
import type { Principal } from '../core/auth.js';
import type { RequestContext } from '../http/request-context.js';
import type { Html } from '../internal/html.js';
import type { FormFields, FormRefusal } from './forms.js';

/** What a console page handler gets: the signed-in operator, the request, and how to answer. */
export interface PageContext {
  readonly base: string;
  readonly url: URL;
  readonly request: Request;
  readonly principal: Principal;
  /** The token forms that change something carry. */
  readonly csrf: string;
  /** The posted form (URL-encoded, as every page posts it), already checked for its CSRF token. */
  readonly form: URLSearchParams | undefined;
  /** The path's `{name}` params, decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly now: number;
  /**
   * Calls `ended` once the session ends (signed out, its key revoked), for an answer that outlives the
   * request (the live stream); returns what stops watching.
   */
  watchSession(ended: () => void): () => void;
  /** A page in the console's frame. */
  render(
    title: string,
    body: Html,
    options?: { readonly status?: number; readonly notice?: string; readonly error?: string },
  ): Response;
  /** See Other to a console path (after a change), with a notice the next page shows. */
  redirect(path: string, notice?: string): Response;
  /**
   * See Other to a console path that shows `secret` once (a new key or secret, sealed in a short-lived
   * cookie of this session, never in the URL): a reload neither posts again nor shows it again.
   */
  redirectShowing(path: string, secret: ShownSecret, notice?: string): Promise<Response>;
}

/** A secret shown once, after the redirect that follows its creation. */
export interface ShownSecret {
  /** What it is: `API key CRM sync`, `New client secret`. */
  readonly label: string;
  readonly value: string;
}

/**
 * One page or action of the console, served to a signed-in principal.
 *
 * @example
 * // A confirmation step before an action: a page that asks, whose form posts to the action's route.
 * const confirmRevoke: ConsoleRoute = {
 *   method: 'GET',
 *   path: '/api-keys/{id}/revoke',
 *   scope: 'admin.oauth.write',
 *   section: 'api-keys',
 *   handle: async (ctx) =>
 *     ctx.render('Revoke this key?', html`<form method="post">${csrfField(ctx.csrf)}<button>Revoke</button></form>`),
 * };
 */
export interface ConsoleRoute {
  /** A GET route answers HEAD too. */
  readonly method: 'GET' | 'POST';
  /** Under the console's base, OpenAPI style: `/webhooks/{id}/deliveries/{delivery}`. */
  readonly path: string;
  /**
   * Who may use it: the admin scope it needs, `user` for a page of the signed-in user's own, or `null`
   * for anyone signed in.
   */
  readonly scope: string | null;
  /** The navigation entry it belongs to, marked as the current one on its page. */
  readonly section?: string;
  /**
   * What it answers (default `html`): errors on an `event-stream` route (the live feed, read by a
   * script) are problem+json rather than a page, and an ended session is 401 rather than a redirect.
   */
  readonly answers?: 'html' | 'event-stream';
  /**
   * For the POST of a form: when the service refuses it (400, 409, 422), the form is shown again by
   * `show`, with each error beside its field and the values kept (422), instead of an error page.
   * `fields` maps the service's field names to the form's (forms.ts).
   */
  readonly refused?: {
    readonly fields: FormFields;
    show(ctx: PageContext, refusal: FormRefusal): Promise<Response>;
  };
  handle(ctx: PageContext): Promise<Response>;
}

/**
 * A route answered without a session (the sign-in page, the assets): the request's context (its
 * request, and the address budgets are kept for) and the path's raw params.
 */
export interface OpenRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  handle(context: RequestContext, params: Readonly<Record<string, string>>): Promise<Response>;
}

/** A form field as text ('' when absent). */
export function field(ctx: PageContext, name: string): string {
  return (ctx.form?.get(name) ?? '').trim();
}

/** Every value of a repeated form field (checkboxes). */
export function fields(ctx: PageContext, name: string): string[] {
  return ctx.form?.getAll(name) ?? [];
}

/** The notice a redirect asked the page to show. */
export function noticeOf(ctx: PageContext): { notice?: string } {
  const notice = ctx.url.searchParams.get('notice');
  return notice ? { notice: notice.slice(0, 200) } : {};
}

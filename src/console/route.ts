import type { Principal } from '../core/auth.js';

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
  /** Named groups of the route's pattern. */
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
    body: string,
    options?: { readonly status?: number; readonly notice?: string; readonly error?: string },
  ): Response;
  /** See Other to a console path (after a change), with a notice the next page shows. */
  redirect(path: string, notice?: string): Response;
}

/** One page or action of the console. */
export interface ConsoleRoute {
  readonly method: 'GET' | 'POST';
  /** Against the path under the console's base, e.g. `^/webhooks/(?<id>[^/]+)$`. */
  readonly pattern: RegExp;
  /** The admin scope the operator needs, or `user` for a page of the signed-in user's own. */
  readonly scope: string;
  /** The navigation entry it belongs to. */
  readonly section: string;
  handle(ctx: PageContext): Promise<Response>;
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

/**
 * A confirmation step before an action that cannot be undone (revoke, rotate, disable, delete), which
 * needs no script: the action's button is a link to a page at the action's own path (GET) that says
 * what will happen and posts the form that does it (POST). A page makes one with {@link confirmed}
 * and links to it with {@link confirmLink}.
 *
 * @example
 * ...confirmed(
 *   { method: 'POST', path: '/api-keys/{id}/revoke', scope, section, handle: revoke },
 *   async (ctx) => ({ title: 'Revoke this key?', text: 'Requests with it are refused.', label: 'Revoke', back: '/api-keys' }),
 * ),
 * // in the list: confirmLink(`${ctx.base}/api-keys/${id}/revoke`, 'Revoke…')
 */
import { type Html, html } from '../internal/html.js';
import { csrfField } from './html.js';
import type { ConsoleRoute, PageContext } from './route.js';

/** What a confirmation page says. */
export interface Confirmation {
  /** The page's heading, a question: `Revoke the key CRM sync?` */
  readonly title: string;
  /** What will happen, in words. */
  readonly text: Html | string;
  /** The button that does it: `Revoke CRM sync`. */
  readonly label: string;
  /** The console path of the page to go back to without doing it. */
  readonly back: string;
  /** Whether the action destroys something (a red button; default true). */
  readonly danger?: boolean;
}

/**
 * The action's two routes: its confirmation page (GET at its path) and the action itself (POST).
 * `ask` may throw (`not_found`, or `conflict` for an action that is refused outright).
 */
export function confirmed(
  action: ConsoleRoute,
  ask: (ctx: PageContext) => Promise<Confirmation>,
): ConsoleRoute[] {
  const page: ConsoleRoute = {
    method: 'GET',
    path: action.path,
    scope: action.scope,
    ...(action.section ? { section: action.section } : {}),
    async handle(ctx) {
      const { title, text, label, back, danger = true } = await ask(ctx);
      const body = html`<p>${text}</p>
<form method="post" action="${ctx.url.pathname}">${csrfField(ctx.csrf)}<button type="submit"${danger && html` class="danger"`}>${label}</button></form>
<p><a href="${ctx.base}${back}">Cancel</a></p>`;
      return ctx.render(title, body);
    },
  };
  return [page, action];
}

/**
 * The link that starts a confirmed action: looks like a button, works without script, ends in `…`
 * (a step follows). `what` it acts on is in its name for screen readers but not shown, so a table's
 * buttons stay short: `Revoke…` reads "Revoke CRM sync…".
 */
export function confirmLink(
  href: string,
  label: string,
  options: { readonly danger?: boolean; readonly what?: string } = {},
): Html {
  const what = options.what && html`<span class="visually-hidden"> ${options.what}</span>`;
  return html`<a class="button${options.danger !== false && ' danger'}" href="${href}">${label}${what}…</a>`;
}

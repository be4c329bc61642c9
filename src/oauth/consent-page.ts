/**
 * The built-in sign-in and consent pages: plain HTML, no script, work with a keyboard and a screen
 * reader (labels, a fieldset per question, an error announced with `role="alert"`).
 */
import { type Html, html, trusted } from '../internal/html.js';

/** One requested scope, in words. */
export interface ScopeView {
  readonly name: string;
  readonly description: string;
}

/**
 * What the authorization page shows and must post back. It has two steps: when there is no host
 * session, first sign in (`askPassword`), then consent; Refuse (or Cancel) needs neither.
 */
export interface ConsentView {
  /** Where the form posts (the authorization endpoint). */
  readonly action: string;
  readonly clientName: string;
  /**
   * Set when the client registered itself (dynamic registration) or is described by a client metadata
   * document: nobody vouched for its name, so the page says so and shows `host`, where the answer is
   * sent (its redirect URI's host), and `document`, the host of its metadata document, when it has one.
   */
  readonly unverified?: { readonly host: string; readonly document?: string };
  readonly scopes: readonly ScopeView[];
  /** The authorization request, to post back unchanged as hidden fields. */
  readonly hidden: Readonly<Record<string, string | readonly string[]>>;
  /** Post back as the `csrf` field. */
  readonly csrfToken: string;
  /**
   * The sign-in step: ask for `username` and `password` and post them with `step=sign_in`. The answer
   * is the consent step, or this step again with `error`.
   */
  readonly askPassword: boolean;
  /** The consent step after a sign-in: post back as the `sign_in_proof` field. */
  readonly signInProof?: string;
  /** The e-mail the user signed in with (consent step), or typed (sign-in step, kept on an error). */
  readonly username?: string;
  readonly error?: string;
}

/**
 * Renders the default pages. The sign-in step posts `step=sign_in` with `username` and `password`,
 * or `decision=refuse`. The consent step posts `decision` (`approve` or `refuse`), `grant_scope` once
 * per approved scope (the user may untick some) and `sign_in_proof`. Both post `csrf` and the hidden
 * fields. (A page that posts `username` and `password` with `decision=approve` in one form works too.)
 */
export function renderConsentPage(view: ConsentView): string {
  const hidden = Object.entries(view.hidden).flatMap(([name, value]) =>
    (typeof value === 'string' ? [value] : value).map(
      (one) => html`<input type="hidden" name="${name}" value="${one}">`,
    ),
  );
  const app = view.clientName;
  const error = view.error && html`<p role="alert" class="error">${view.error}</p>`;
  // The name is whatever the client chose: the host its answer goes to is what the user can check.
  const described =
    view.unverified?.document === undefined
      ? 'registered itself'
      : html`describes itself at <strong>${view.unverified.document}</strong>`;
  const unverified =
    view.unverified &&
    html`<p class="unverified"><strong>Unverified app.</strong> ${app} ${described}; nobody has checked
      who runs it. It will receive the answer at <strong>${view.unverified.host}</strong>.</p>`;
  if (view.askPassword) {
    return page(
      `Sign in to continue to ${app}`,
      html`<h1>Sign in to continue to <strong>${app}</strong></h1>
    ${unverified}
    ${error}
    <form method="post" action="${view.action}">
      ${hidden}
      <input type="hidden" name="csrf" value="${view.csrfToken}">
      <p><label for="username">E-mail</label><br>
        <input id="username" name="username" type="email" autocomplete="username" required value="${view.username ?? ''}"></p>
      <p><label for="password">Password</label><br>
        <input id="password" name="password" type="password" autocomplete="current-password" required></p>
      <p>Next you choose what ${app} may do. Nothing is shared with it until you allow it.</p>
      <button type="submit" name="step" value="sign_in">Continue</button>
      <!-- Cancelling needs no sign-in: the button skips the form's required fields. -->
      <button type="submit" name="decision" value="refuse" formnovalidate>Cancel</button>
    </form>`,
    );
  }
  const scopes = view.scopes.map(
    (s, i) => html`<li><input type="checkbox" id="scope-${i}" name="grant_scope" value="${s.name}" checked>
          <label for="scope-${i}">${s.description} <code>${s.name}</code></label></li>`,
  );
  const who = view.username && html`<p>Signed in as <strong>${view.username}</strong>.</p>`;
  const proof =
    view.signInProof && html`<input type="hidden" name="sign_in_proof" value="${view.signInProof}">`;
  return page(
    `Allow ${app} access?`,
    html`<h1>Allow <strong>${app}</strong> access?</h1>
    ${unverified}
    ${who}
    ${error}
    <form method="post" action="${view.action}">
      ${hidden}
      <input type="hidden" name="csrf" value="${view.csrfToken}">
      ${proof}
      <fieldset>
        <legend>${app} asks to:</legend>
        <ul>
        ${scopes}
        </ul>
        <p>Untick anything you do not want to allow. With nothing ticked, Allow is the same as Refuse:
          ${app} gets no access.</p>
      </fieldset>
      <button type="submit" name="decision" value="approve">Allow</button>
      <button type="submit" name="decision" value="refuse">Refuse</button>
    </form>`,
  );
}

function page(title: string, main: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title}</title>
  ${PAGE_STYLE}
</head>
<body>
  <main>
    ${main}
  </main>
</body>
</html>`.text;
}

/** The look every page of the authorization endpoint shares (inline: the CSP allows no other). */
const PAGE_STYLE = trusted(`<style>
    body { font: 1rem/1.5 system-ui, sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem; color: #111; }
    fieldset { border: 1px solid #888; margin: 1rem 0; } ul { list-style: none; padding: 0; }
    li { margin: .5rem 0; } .error { color: #a00; font-weight: bold; }
    .unverified { border-left: 4px solid #a60; padding-left: .5rem; }
    button, .button { font: inherit; padding: .5rem 1rem; margin-right: .5rem; }
    .button { display: inline-block; border: 1px solid #444; border-radius: 3px; color: #111; text-decoration: none; }
    :focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
  </style>`);

/** The app an error page names, when it is known, and where its own site is. */
export interface ErrorPageApp {
  readonly name: string;
  /** The app's site (the origin of one of its registered https redirect URIs); no link without it. */
  readonly home?: string;
}

/**
 * A page for errors that must not be redirected (unknown client, unregistered redirect URI): it says
 * what went wrong, names the app when it is known, and offers a way back to the app's own site.
 */
export function renderErrorPage(message: string, app?: ErrorPageApp): string {
  const who = app ? html`<strong>${app.name}</strong>` : 'the app you came from';
  const back = app?.home
    ? html`<p><a class="button" href="${app.home}">Return to ${app.name}</a></p>`
    : html`<p>Close this page and start again from the app.</p>`;
  return page(
    'Cannot continue',
    html`<h1>This sign-in link is not valid</h1>
    <p role="alert" class="error">${message}</p>
    <p>Nothing was shared with ${who}. Go back to it and try again; if this keeps happening, tell its makers.</p>
    ${back}`,
  );
}

/** Headers every page of the authorization endpoint carries: no framing (clickjacking), no caching. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

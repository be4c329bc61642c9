/**
 * The built-in sign-in and consent pages: plain HTML in the one look (internal/look), no script, work
 * with a keyboard and a screen reader (labels, a fieldset per question, an error announced with
 * `role="alert"`).
 */
import { type Html, html } from '../internal/html.js';
import {
  type Branding,
  brandingOf,
  type Look,
  lookCsp,
  resolveLook,
  siteHeader,
  stylesheetLink,
} from '../internal/look/index.js';

/** Where the authorization server serves the look's style sheet: `/oauth/look-<hash>.css`. */
export const OAUTH_ASSETS = '/oauth';

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
  /**
   * The host's name and logo, and the style sheet's URL (the server's look, set by the authorization
   * endpoint). Default: Switchboard's.
   */
  readonly branding?: {
    readonly name: string;
    readonly logoUrl?: string | undefined;
    readonly stylesheet: string;
  };
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
  const branding = view.branding ?? defaultBranding();
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
      branding,
      `Sign in to continue to ${app}`,
      html`<h1>Sign in to continue to <strong>${app}</strong></h1>
    ${unverified}
    ${error}
    <form method="post" action="${view.action}">
      ${hidden}
      <input type="hidden" name="csrf" value="${view.csrfToken}">
      <div class="field"><label for="username">E-mail</label>
        <input id="username" name="username" type="email" autocomplete="username" required value="${view.username ?? ''}"></div>
      <div class="field"><label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required></div>
      <p>Next you choose what ${app} may do. Nothing is shared with it until you allow it.</p>
      <div class="actions">
      <button type="submit" name="step" value="sign_in">Continue</button>
      <!-- Cancelling needs no sign-in: the button skips the form's required fields. -->
      <button type="submit" name="decision" value="refuse" class="secondary" formnovalidate>Cancel</button>
      </div>
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
    branding,
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
        <ul class="checks">
        ${scopes}
        </ul>
        <p>Untick anything you do not want to allow. With nothing ticked, Allow is the same as Refuse:
          ${app} gets no access.</p>
      </fieldset>
      <div class="actions">
      <button type="submit" name="decision" value="approve">Allow</button>
      <button type="submit" name="decision" value="refuse" class="secondary">Refuse</button>
      </div>
    </form>`,
  );
}

function page(branding: Branding, title: string, main: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${title} · ${branding.name}</title>
  ${stylesheetLink(branding)}
</head>
<body class="look">
  ${siteHeader(branding)}
  <main class="narrow">
    ${main}
  </main>
</body>
</html>`.text;
}

/** The branding of a server with the default look (a host that renders a view it made itself). */
function defaultBranding(): Branding {
  return brandingOf(resolveLook(), OAUTH_ASSETS);
}

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
export function renderErrorPage(
  message: string,
  app?: ErrorPageApp,
  branding: Branding = defaultBranding(),
): string {
  const who = app ? html`<strong>${app.name}</strong>` : 'the app you came from';
  const back = app?.home
    ? html`<p><a class="button secondary" href="${app.home}">Return to ${app.name}</a></p>`
    : html`<p>Close this page and start again from the app.</p>`;
  return page(
    branding,
    'Cannot continue',
    html`<h1>This sign-in link is not valid</h1>
    <p role="alert" class="error">${message}</p>
    <p>Nothing was shared with ${who}. Go back to it and try again; if this keeps happening, tell its makers.</p>
    ${back}`,
  );
}

/**
 * Headers every page of the authorization endpoint carries: the look's CSP (no inline style, no script),
 * no framing (clickjacking), no caching.
 */
export function pageHeaders(look: Look): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': lookCsp(look),
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

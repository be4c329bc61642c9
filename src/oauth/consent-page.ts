/**
 * The built-in sign-in and consent page: plain HTML, no script, works with a keyboard and a screen
 * reader (labels, a fieldset per question, an error announced with `role="alert"`).
 */

/** One requested scope, in words. */
export interface ScopeView {
  readonly name: string;
  readonly description: string;
}

/** What a consent page shows and must post back. */
export interface ConsentView {
  /** Where the form posts (the authorization endpoint). */
  readonly action: string;
  readonly clientName: string;
  readonly scopes: readonly ScopeView[];
  /** The authorization request, to post back unchanged as hidden fields. */
  readonly hidden: Readonly<Record<string, string>>;
  /** Post back as the `csrf` field. */
  readonly csrfToken: string;
  /** Show username and password fields (no host session). */
  readonly askPassword: boolean;
  /** The e-mail the user typed, kept when the page comes back with an error. */
  readonly username?: string;
  readonly error?: string;
}

/**
 * Renders the default page. The form posts `decision` (`approve` or `refuse`), `grant_scope` once per
 * approved scope (the user may untick some), `csrf`, the hidden fields, and `username`/`password`.
 */
export function renderConsentPage(view: ConsentView): string {
  const hidden = Object.entries(view.hidden)
    .map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`)
    .join('\n      ');
  const scopes = view.scopes
    .map(
      (s, i) => `<li><input type="checkbox" id="scope-${i}" name="grant_scope" value="${esc(s.name)}" checked>
          <label for="scope-${i}">${esc(s.description)} <code>${esc(s.name)}</code></label></li>`,
    )
    .join('\n        ');
  const signIn = view.askPassword
    ? `<fieldset>
        <legend>Sign in</legend>
        <p><label for="username">E-mail</label><br>
          <input id="username" name="username" type="email" autocomplete="username" required value="${esc(view.username ?? '')}"></p>
        <p><label for="password">Password</label><br>
          <input id="password" name="password" type="password" autocomplete="current-password" required></p>
      </fieldset>`
    : '';
  const error = view.error ? `<p role="alert" class="error">${esc(view.error)}</p>` : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Allow ${esc(view.clientName)} access?</title>
  ${PAGE_STYLE}
</head>
<body>
  <main>
    <h1>Allow <strong>${esc(view.clientName)}</strong> access?</h1>
    ${error}
    <form method="post" action="${esc(view.action)}">
      ${hidden}
      <input type="hidden" name="csrf" value="${esc(view.csrfToken)}">
      ${signIn}
      <fieldset>
        <legend>${esc(view.clientName)} asks to:</legend>
        <ul>
        ${scopes}
        </ul>
        <p>Untick anything you do not want to allow. With nothing ticked, Allow is the same as Refuse:
          ${esc(view.clientName)} gets no access.</p>
      </fieldset>
      <button type="submit" name="decision" value="approve">Allow</button>
      <!-- Refusing needs no sign-in: the button skips the form's required fields. -->
      <button type="submit" name="decision" value="refuse" formnovalidate>Refuse</button>
    </form>
  </main>
</body>
</html>`;
}

/** The look every page of the authorization endpoint shares (inline: the CSP allows no other). */
const PAGE_STYLE = `<style>
    body { font: 1rem/1.5 system-ui, sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem; color: #111; }
    fieldset { border: 1px solid #888; margin: 1rem 0; } ul { list-style: none; padding: 0; }
    li { margin: .5rem 0; } .error { color: #a00; font-weight: bold; }
    button, .button { font: inherit; padding: .5rem 1rem; margin-right: .5rem; }
    .button { display: inline-block; border: 1px solid #444; border-radius: 3px; color: #111; text-decoration: none; }
    :focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
  </style>`;

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
  const who = app ? `<strong>${esc(app.name)}</strong>` : 'the app you came from';
  const back = app?.home
    ? `<p><a class="button" href="${esc(app.home)}">Return to ${esc(app.name)}</a></p>`
    : '<p>Close this page and start again from the app.</p>';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Cannot continue</title>
  ${PAGE_STYLE}
</head>
<body>
  <main>
    <h1>This sign-in link is not valid</h1>
    <p role="alert" class="error">${esc(message)}</p>
    <p>Nothing was shared with ${who}. Go back to it and try again; if this keeps happening, tell its makers.</p>
    ${back}
  </main>
</body>
</html>`;
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

function esc(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

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
          <input id="username" name="username" type="email" autocomplete="username" required></p>
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
  <style>
    body { font: 1rem/1.5 system-ui, sans-serif; max-width: 32rem; margin: 2rem auto; padding: 0 1rem; color: #111; }
    fieldset { border: 1px solid #888; margin: 1rem 0; } ul { list-style: none; padding: 0; }
    li { margin: .5rem 0; } .error { color: #a00; font-weight: bold; }
    button { font: inherit; padding: .5rem 1rem; margin-right: .5rem; }
    :focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
  </style>
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
        <p>Untick anything you do not want to allow.</p>
      </fieldset>
      <button type="submit" name="decision" value="approve">Allow</button>
      <button type="submit" name="decision" value="refuse">Refuse</button>
    </form>
  </main>
</body>
</html>`;
}

/** A page for errors that must not be redirected (unknown client, unregistered redirect URI). */
export function renderErrorPage(message: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Cannot continue</title></head>
<body><main><h1>This sign-in link is not valid</h1><p role="alert">${esc(message)}</p>
<p>Go back to the app you came from and try again.</p></main></body>
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

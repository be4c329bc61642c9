import { esc, page } from '../html.js';

/** The sign-in page: one field, the admin API key. */
export function signInPage(view: {
  readonly base: string;
  readonly assets: { readonly css: string; readonly js: string };
  readonly error?: string;
}): string {
  return page(
    { base: view.base, title: 'Sign in', assets: view.assets, ...(view.error ? { error: view.error } : {}) },
    `<p>Sign in with an admin API key (<code>sbk_…</code>): one that holds an <code>admin.*</code> scope.</p>
<form method="post" action="${esc(view.base)}/sign-in">
  <div class="field"><label for="api_key">Admin API key</label><br>
  <input id="api_key" name="api_key" type="password" autocomplete="off" required size="60"></div>
  <button type="submit">Sign in</button>
</form>`,
  );
}

import { html } from '../../internal/html.js';
import { type AssetNames, page } from '../html.js';

/** The sign-in page: the admin API key, and (when users can sign in) e-mail and password. */
export function signInPage(view: {
  readonly base: string;
  readonly assets: AssetNames;
  readonly error?: string;
  /** Offer the sign-in with an account (e-mail and password) too. */
  readonly accounts?: boolean;
}): string {
  return page(
    { base: view.base, title: 'Sign in', assets: view.assets, ...(view.error ? { error: view.error } : {}) },
    html`<p>Sign in with an admin API key (<code>sbk_…</code>): one that holds an <code>admin.*</code> scope.</p>
<form method="post" action="${view.base}/sign-in">
  <div class="field"><label for="api_key">Admin API key</label><br>
  <input id="api_key" name="api_key" type="password" autocomplete="off" required size="60"></div>
  <button type="submit">Sign in</button>
</form>${
      view.accounts &&
      html`
<h2>Or with your account</h2>
<p>See the applications you authorized, and take access back.</p>
<form method="post" action="${view.base}/sign-in">
  <div class="field"><label for="email">E-mail</label><br>
  <input id="email" name="email" type="email" autocomplete="username" required size="40"></div>
  <div class="field"><label for="password">Password</label><br>
  <input id="password" name="password" type="password" autocomplete="current-password" required size="40"></div>
  <button type="submit">Sign in with your account</button>
</form>`
    }`,
  );
}

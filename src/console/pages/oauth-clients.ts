/**
 * OAuth client pages: every client with who registered it and its status, registration, and a client's
 * page (redirect URIs and scopes, secret rotation, approval of a self-registered client, disabling,
 * deletion after a confirmation step, and the MCP tools it may call).
 */

import { type Html, html } from '../../internal/html.js';
import { ADMIN_SCOPE as WRITE } from '../../oauth/admin-routes.js';
import type { OAuthAdmin, OAuthClientView } from '../../oauth/admin-service.js';
import { button, checkboxes, csrfField, shownOnce, table } from '../html.js';
import { type ConsoleRoute, field, fields, noticeOf } from '../route.js';

const section = 'oauth-clients';

/** Where a client's pages are. */
const pathOf = (id: string): string => `/oauth-clients/${encodeURIComponent(id)}`;

/** Disabled, unverified (registered itself, nobody approved it), approved, or active (an operator's). */
function status(client: OAuthClientView): Html {
  if (client.disabled) return html`<span class="status-dead">disabled</span>`;
  if (client.selfRegistered && !client.approved) return html`<span class="status-pending">unverified</span>`;
  return html`${client.approved ? 'approved' : 'active'}`;
}

const registeredBy = (client: OAuthClientView): string =>
  client.selfRegistered ? 'itself (dynamic registration)' : 'an operator';

export function oauthClientRoutes(admin: OAuthAdmin, scopes: readonly string[]): ConsoleRoute[] {
  const lines = (text: string) =>
    text
      .split(/\s+/)
      .map((l) => l.trim())
      .filter(Boolean);
  // A client's action: a post, then back to its page with what happened.
  const action = (name: string, run: (id: string) => Promise<unknown>, notice: string): ConsoleRoute => ({
    method: 'POST',
    path: `/oauth-clients/{id}/${name}`,
    scope: WRITE,
    section,
    async handle(ctx) {
      const id = ctx.params.id!;
      await run(id);
      return ctx.redirect(pathOf(id), notice);
    },
  });

  return [
    {
      method: 'GET',
      path: '/oauth-clients',
      scope: WRITE,
      section,
      async handle(ctx) {
        const clients = await admin.listClients();
        const rows = clients.map((c) => [
          html`<a href="${ctx.base}${pathOf(c.id)}">${c.name}</a>`,
          html`<code>${c.id}</code>`,
          registeredBy(c),
          status(c),
          c.redirectUris.join(' '),
          c.scopes.join(' '),
        ]);
        const head = ['Name', 'Client id', 'Registered by', 'Status', 'Redirect URIs', 'Scopes'];
        const body = html`${table('OAuth clients', head, rows)}
<h2>Register a client</h2>
<form method="post" action="${ctx.base}/oauth-clients">${csrfField(ctx.csrf)}
  <div class="field"><label for="name">Name</label><br><input id="name" name="name" required size="40"></div>
  <fieldset><legend>Type</legend>
    <label class="check"><input type="radio" name="type" value="confidential" checked> confidential (a server that keeps a secret)</label>
    <label class="check"><input type="radio" name="type" value="public"> public (a browser or mobile app: PKCE, no secret)</label>
  </fieldset>
  <div class="field"><label for="redirectUris">Redirect URIs, one per line</label><br><textarea id="redirectUris" name="redirectUris" rows="3" cols="60"></textarea></div>
  ${checkboxes('scopes', 'Scopes it may ask for', scopes, new Set())}
  <button type="submit">Register</button>
</form>`;
        return ctx.render('OAuth clients', body, noticeOf(ctx));
      },
    },
    {
      method: 'POST',
      path: '/oauth-clients',
      scope: WRITE,
      section,
      async handle(ctx) {
        const registered = await admin.registerClient({
          name: field(ctx, 'name'),
          type: field(ctx, 'type') || 'confidential',
          redirectUris: lines(field(ctx, 'redirectUris')),
          scopes: fields(ctx, 'scopes'),
        });
        const secret = registered.secret && shownOnce('Client secret', registered.secret);
        return ctx.render(
          'Client registered',
          html`<p>Client id <code>${registered.client.id}</code></p>${secret}<p><a href="${ctx.base}${pathOf(registered.client.id)}">Open the client</a></p>`,
        );
      },
    },
    {
      method: 'GET',
      path: '/oauth-clients/{id}',
      scope: WRITE,
      section,
      async handle(ctx) {
        const client = await admin.getClient(ctx.params.id!);
        const base = `${ctx.base}${pathOf(client.id)}`;
        const known = admin.mcpTools();
        const restricted = client.mcpTools !== null;
        // The tools /mcp serves, ticked as allowed; names alone when the console cannot know them.
        const toolNames = known
          ? checkboxes('tools', 'Only these tools', known, new Set(client.mcpTools ?? []))
          : html`<div class="field"><label for="tools">Only these tools, one name per line</label><br><textarea id="tools" name="tools" rows="4" cols="40">${(client.mcpTools ?? []).join('\n')}</textarea></div>`;
        const body = html`<dl><dt>Client id</dt><dd><code>${client.id}</code></dd>
  <dt>Registered by</dt><dd>${registeredBy(client)}</dd>
  <dt>Status</dt><dd>${status(client)}</dd>
</dl>
<form method="post" action="${base}">${csrfField(ctx.csrf)}
  <div class="field"><label for="redirectUris">Redirect URIs, one per line</label><br><textarea id="redirectUris" name="redirectUris" rows="4" cols="60">${client.redirectUris.join('\n')}</textarea></div>
  ${checkboxes('scopes', 'Scopes it may ask for', scopes, new Set(client.scopes))}
  <button type="submit">Save</button>
</form>
${client.type === 'confidential' && html`<p>${button(`${base}/rotate-secret`, 'Rotate the client secret', ctx.csrf)}</p>`}
<h2>Tools it may call</h2>
<p>The MCP tools its tokens see and call on <code>/mcp</code>, always within what their scopes allow.</p>
<form method="post" action="${base}/tools">${csrfField(ctx.csrf)}
  <fieldset><legend>Tools</legend>
    <label class="check"><input type="radio" name="toolsMode" value="all"${!restricted && html` checked`}> All tools its scopes allow</label>
    <label class="check"><input type="radio" name="toolsMode" value="some"${restricted && html` checked`}> Only the tools ticked below</label>
  </fieldset>
  ${toolNames}
  <button type="submit">Save tools</button>
</form>
<h2>Status</h2>
<p>${client.selfRegistered && !client.approved && html`${button(`${base}/approve`, 'Approve', ctx.csrf)} `}${
          client.disabled
            ? button(`${base}/enable`, 'Enable', ctx.csrf)
            : button(`${base}/disable`, 'Disable', ctx.csrf, { danger: true })
        } <a href="${base}/delete">Delete this client…</a></p>
<p>Approving vouches for an app that registered itself: the consent page stops calling it unverified.
Disabling refuses it new authorizations and ends every token it holds at once; enabling it again does not bring those back.</p>`;
        return ctx.render(`OAuth client ${client.name}`, body, noticeOf(ctx));
      },
    },
    {
      method: 'POST',
      path: '/oauth-clients/{id}',
      scope: WRITE,
      section,
      async handle(ctx) {
        const id = ctx.params.id!;
        await admin.updateClient(id, {
          redirectUris: lines(field(ctx, 'redirectUris')),
          scopes: fields(ctx, 'scopes'),
        });
        return ctx.redirect(pathOf(id), 'Saved.');
      },
    },
    {
      method: 'POST',
      path: '/oauth-clients/{id}/rotate-secret',
      scope: WRITE,
      section,
      async handle(ctx) {
        const rotated = await admin.rotateClientSecret(ctx.params.id!, { overlapSeconds: 86_400 });
        return ctx.render(
          'Client secret rotated',
          html`${shownOnce('New client secret', rotated.secret)}<p>The previous secret keeps working for 24 hours. <a href="${ctx.base}${pathOf(rotated.client.id)}">Back to the client</a></p>`,
        );
      },
    },
    {
      method: 'POST',
      path: '/oauth-clients/{id}/tools',
      scope: WRITE,
      section,
      async handle(ctx) {
        const id = ctx.params.id!;
        const some = field(ctx, 'toolsMode') === 'some';
        // Ticked boxes repeat the field; the textarea (names the console cannot list) is one value.
        const tools = some ? fields(ctx, 'tools').flatMap(lines) : null;
        await admin.restrictClientTools(id, { tools });
        return ctx.redirect(
          pathOf(id),
          some
            ? `It may call ${tools!.length} tool(s) from now on.`
            : 'It may call every tool its scopes allow.',
        );
      },
    },
    action(
      'approve',
      (id) => admin.approveClient(id),
      'Approved: the consent page no longer calls it unverified.',
    ),
    action(
      'disable',
      (id) => admin.disableClient(id),
      'Disabled: it gets no new authorization, and the tokens it held are refused from now on.',
    ),
    action('enable', (id) => admin.enableClient(id), 'Enabled: its users may authorize it again.'),
    {
      // The confirmation step, a page of its own so it works without the page's script.
      method: 'GET',
      path: '/oauth-clients/{id}/delete',
      scope: WRITE,
      section,
      async handle(ctx) {
        const client = await admin.getClient(ctx.params.id!);
        const base = `${ctx.base}${pathOf(client.id)}`;
        const body = html`<p>Deleting <strong>${client.name}</strong> (<code>${client.id}</code>) revokes every grant users gave it, so its tokens are refused at once. It cannot be undone: the app would have to be registered again.</p>
<form method="post" action="${base}/delete">${csrfField(ctx.csrf)}<button type="submit" class="danger">Delete ${client.name}</button></form>
<p><a href="${base}">Keep it</a></p>`;
        return ctx.render(`Delete ${client.name}?`, body);
      },
    },
    {
      method: 'POST',
      path: '/oauth-clients/{id}/delete',
      scope: WRITE,
      section,
      async handle(ctx) {
        await admin.deleteClient(ctx.params.id!);
        return ctx.redirect('/oauth-clients', 'The client is deleted: its tokens are refused from now on.');
      },
    },
  ];
}

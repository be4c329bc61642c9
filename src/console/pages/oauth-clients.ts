/**
 * OAuth client pages: every client with who registered it and its status, registration, and a client's
 * page (redirect URIs and scopes, secret rotation, approval of a self-registered client, disabling,
 * deletion after a confirmation step, and the MCP tools it may call).
 */

import { type Html, html } from '../../internal/html.js';
import { ADMIN_SCOPE as WRITE } from '../../oauth/admin-routes.js';
import type { OAuthAdmin, OAuthClientView } from '../../oauth/admin-service.js';
import { confirmed, confirmLink } from '../confirm.js';
import {
  choiceField,
  type FormFields,
  type FormRefusal,
  formValue,
  formValues,
  statusOf,
  textField,
} from '../forms.js';
import { button, checkboxes, csrfField, table } from '../html.js';
import { type ConsoleRoute, field, fields, noticeOf, type PageContext } from '../route.js';

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

/** The service's fields of a client, as its forms name them. */
const CLIENT_FIELDS: FormFields = {
  name: { field: 'name', label: 'Name' },
  type: { field: 'type', label: 'Type' },
  redirectUris: { field: 'redirectUris', label: 'Redirect URIs' },
  scopes: { field: 'scopes', label: 'Scopes' },
  grantTypes: { field: 'type', label: 'Type' },
  tools: { field: 'tools', label: 'Tools' },
};

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

  const scopeChoices = scopes.map((s) => ({ value: s, label: `${admin.scopes[s] ?? s} (${s})` }));

  async function listPage(ctx: PageContext, refusal?: FormRefusal): Promise<Response> {
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
  ${textField({ name: 'name', label: 'Name', value: formValue(refusal, 'name'), required: true }, refusal)}
  ${choiceField(
    {
      name: 'type',
      legend: 'Type',
      type: 'radio',
      choices: [
        { value: 'confidential', label: 'confidential (a server that keeps a secret)' },
        { value: 'public', label: 'public (a browser or mobile app: PKCE, no secret)' },
      ],
      ticked: new Set([formValue(refusal, 'type', 'confidential')]),
    },
    refusal,
  )}
  ${textField({ name: 'redirectUris', label: 'Redirect URIs, one per line', value: formValue(refusal, 'redirectUris'), rows: 3 }, refusal)}
  ${choiceField({ name: 'scopes', legend: 'Scopes it may ask for', choices: scopeChoices, ticked: formValues(refusal, 'scopes') }, refusal)}
  <button type="submit">Register</button>
</form>`;
    return ctx.render('OAuth clients', body, { ...noticeOf(ctx), ...statusOf(refusal) });
  }

  async function clientPage(ctx: PageContext, refusal?: FormRefusal): Promise<Response> {
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
  ${textField({ name: 'redirectUris', label: 'Redirect URIs, one per line', value: formValue(refusal, 'redirectUris', client.redirectUris.join('\n')), rows: 4 }, refusal)}
  ${choiceField({ name: 'scopes', legend: 'Scopes it may ask for', choices: scopeChoices, ticked: formValues(refusal, 'scopes', client.scopes) }, refusal)}
  <button type="submit">Save</button>
</form>
${client.type === 'confidential' && html`<p>${confirmLink(`${base}/rotate-secret`, 'Rotate the client secret', { danger: false })}</p>`}
<h2>Tools it may call</h2>
<p>The MCP tools its tokens see and call on <code>/mcp</code>, always within what their scopes allow.</p>
<form method="post" action="${base}/tools">${csrfField(ctx.csrf)}
  <fieldset><legend>Tools</legend>
    <label class="check"><input type="radio" name="toolsMode" value="all"${!restricted && html` checked`}> All tools its scopes allow</label>
    <label class="check"><input type="radio" name="toolsMode" value="some"${restricted && html` checked`}> Only the tools ticked below</label>
  </fieldset>
  ${refusal?.errors.tools && html`<p class="field-error">${refusal.errors.tools}</p>`}
  ${toolNames}
  <button type="submit">Save tools</button>
</form>
<h2>Status</h2>
<p>${client.selfRegistered && !client.approved && html`${button(`${base}/approve`, 'Approve', ctx.csrf)} `}${
      client.disabled
        ? button(`${base}/enable`, 'Enable', ctx.csrf)
        : confirmLink(`${base}/disable`, 'Disable')
    } <a href="${base}/delete">Delete this client…</a></p>
<p>Approving vouches for an app that registered itself: the consent page stops calling it unverified.
Disabling refuses it new authorizations and ends every token it holds at once; enabling it again does not bring those back.</p>`;
    return ctx.render(`OAuth client ${client.name}`, body, { ...noticeOf(ctx), ...statusOf(refusal) });
  }

  return [
    { method: 'GET', path: '/oauth-clients', scope: WRITE, section, handle: (ctx) => listPage(ctx) },
    {
      method: 'POST',
      path: '/oauth-clients',
      scope: WRITE,
      section,
      refused: { fields: CLIENT_FIELDS, show: listPage },
      async handle(ctx) {
        const registered = await admin.registerClient({
          name: field(ctx, 'name'),
          type: field(ctx, 'type') || 'confidential',
          redirectUris: lines(field(ctx, 'redirectUris')),
          scopes: fields(ctx, 'scopes'),
        });
        const to = pathOf(registered.client.id);
        const notice = `${registered.client.name} is registered.`;
        return registered.secret
          ? ctx.redirectShowing(to, { label: 'Client secret', value: registered.secret }, notice)
          : ctx.redirect(to, notice);
      },
    },
    { method: 'GET', path: '/oauth-clients/{id}', scope: WRITE, section, handle: (ctx) => clientPage(ctx) },
    {
      method: 'POST',
      path: '/oauth-clients/{id}',
      scope: WRITE,
      section,
      refused: { fields: CLIENT_FIELDS, show: clientPage },
      async handle(ctx) {
        const id = ctx.params.id!;
        await admin.updateClient(id, {
          redirectUris: lines(field(ctx, 'redirectUris')),
          scopes: fields(ctx, 'scopes'),
        });
        return ctx.redirect(pathOf(id), 'Saved.');
      },
    },
    ...confirmed(
      {
        method: 'POST',
        path: '/oauth-clients/{id}/rotate-secret',
        scope: WRITE,
        section,
        async handle(ctx) {
          const rotated = await admin.rotateClientSecret(ctx.params.id!, { overlapSeconds: 86_400 });
          return ctx.redirectShowing(
            pathOf(rotated.client.id),
            { label: 'New client secret', value: rotated.secret },
            'The secret is rotated: the previous one keeps working for 24 hours.',
          );
        },
      },
      async (ctx) => {
        const client = await admin.getClient(ctx.params.id!);
        return {
          title: `Rotate the secret of ${client.name}?`,
          text: 'A new secret is made and shown once. The current one keeps working for 24 hours, time to put the new one where the app reads it.',
          label: 'Rotate the secret',
          back: pathOf(client.id),
          danger: false,
        };
      },
    ),
    {
      method: 'POST',
      path: '/oauth-clients/{id}/tools',
      scope: WRITE,
      section,
      refused: { fields: CLIENT_FIELDS, show: clientPage },
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
    ...confirmed(
      action(
        'disable',
        (id) => admin.disableClient(id),
        'Disabled: it gets no new authorization, and the tokens it held are refused from now on.',
      ),
      async (ctx) => {
        const client = await admin.getClient(ctx.params.id!);
        return {
          title: `Disable ${client.name}?`,
          text: 'It gets no new authorization, and every token it holds is refused at once. Enabling it again does not bring those tokens back: its users allow it again.',
          label: `Disable ${client.name}`,
          back: pathOf(client.id),
        };
      },
    ),
    action('enable', (id) => admin.enableClient(id), 'Enabled: its users may authorize it again.'),
    ...confirmed(
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
      async (ctx) => {
        const client = await admin.getClient(ctx.params.id!);
        return {
          title: `Delete ${client.name}?`,
          text: html`Deleting <strong>${client.name}</strong> (<code>${client.id}</code>) revokes every grant users gave it, so its tokens are refused at once. It cannot be undone: the app would have to be registered again.`,
          label: `Delete ${client.name}`,
          back: pathOf(client.id),
        };
      },
    ),
  ];
}

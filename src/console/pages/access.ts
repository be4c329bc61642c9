/**
 * Access pages: API keys (create — the key shown once —, scopes, last use, revoke), OAuth clients
 * (register, edit redirect URIs and scopes, rotate the secret) and the grants users gave to
 * applications (revoke one, which ends its tokens).
 */

import { html } from '../../internal/html.js';
import { ADMIN_SCOPE as WRITE } from '../../oauth/admin-routes.js';
import type { OAuthAdmin } from '../../oauth/admin-service.js';
import { button, checkboxes, csrfField, shownOnce, table, time } from '../html.js';
import { type ConsoleRoute, field, fields, noticeOf } from '../route.js';

/** A time as stored (epoch ms or ISO text) as ISO text. */
function iso(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? new Date(value).toISOString() : value;
}

export function accessRoutes(admin: OAuthAdmin, scopes: readonly string[]): ConsoleRoute[] {
  const lines = (text: string) =>
    text
      .split(/\s+/)
      .map((l) => l.trim())
      .filter(Boolean);
  return [
    {
      method: 'GET',
      path: '/api-keys',
      scope: WRITE,
      section: 'api-keys',
      async handle(ctx) {
        const keys = await admin.listApiKeys();
        const rows = keys.map((k) => [
          k.name,
          k.scopes.join(' '),
          time(iso(k.createdAt)),
          time(iso(k.lastUsedAt)),
          k.revokedAt
            ? html`revoked ${time(iso(k.revokedAt))}`
            : button(
                `${ctx.base}/api-keys/${encodeURIComponent(k.id)}/revoke`,
                `Revoke ${k.name}`,
                ctx.csrf,
                {
                  danger: true,
                },
              ),
        ]);
        const body = html`${table('API keys', ['Name', 'Scopes', 'Created', 'Last used', ''], rows)}
<h2>New API key</h2>
<form method="post" action="${ctx.base}/api-keys">${csrfField(ctx.csrf)}
  <div class="field"><label for="name">Name</label><br><input id="name" name="name" required size="40"></div>
  ${checkboxes('scopes', 'Scopes', scopes, new Set())}
  <button type="submit">Create API key</button>
</form>`;
        return ctx.render('API keys', body, noticeOf(ctx));
      },
    },
    {
      method: 'POST',
      path: '/api-keys',
      scope: WRITE,
      section: 'api-keys',
      async handle(ctx) {
        const created = await admin.createApiKey({ name: field(ctx, 'name'), scopes: fields(ctx, 'scopes') });
        return ctx.render(
          'API key created',
          html`${shownOnce(`API key ${created.apiKey.name}`, created.key)}<p><a href="${ctx.base}/api-keys">Back to the API keys</a></p>`,
        );
      },
    },
    {
      method: 'POST',
      path: '/api-keys/{id}/revoke',
      scope: WRITE,
      section: 'api-keys',
      async handle(ctx) {
        await admin.revokeApiKey(ctx.params.id!);
        return ctx.redirect('/api-keys', 'The key is revoked: requests with it are refused from now on.');
      },
    },
    {
      method: 'GET',
      path: '/oauth-clients',
      scope: WRITE,
      section: 'oauth-clients',
      async handle(ctx) {
        const clients = await admin.listClients();
        const rows = clients.map((c) => [
          html`<a href="${ctx.base}/oauth-clients/${encodeURIComponent(c.id)}">${c.name}</a>`,
          html`<code>${c.id}</code>`,
          c.redirectUris.join(' '),
          c.scopes.join(' '),
        ]);
        const body = html`${table('OAuth clients', ['Name', 'Client id', 'Redirect URIs', 'Scopes'], rows)}
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
      section: 'oauth-clients',
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
          html`<p>Client id <code>${registered.client.id}</code></p>${secret}<p><a href="${ctx.base}/oauth-clients/${encodeURIComponent(registered.client.id)}">Open the client</a></p>`,
        );
      },
    },
    {
      method: 'GET',
      path: '/oauth-clients/{id}',
      scope: WRITE,
      section: 'oauth-clients',
      async handle(ctx) {
        const client = await admin.getClient(ctx.params.id!);
        const base = `${ctx.base}/oauth-clients/${encodeURIComponent(client.id)}`;
        const body = html`<dl><dt>Client id</dt><dd><code>${client.id}</code></dd></dl>
<form method="post" action="${base}">${csrfField(ctx.csrf)}
  <div class="field"><label for="redirectUris">Redirect URIs, one per line</label><br><textarea id="redirectUris" name="redirectUris" rows="4" cols="60">${client.redirectUris.join('\n')}</textarea></div>
  ${checkboxes('scopes', 'Scopes it may ask for', scopes, new Set(client.scopes))}
  <button type="submit">Save</button>
</form>
<p>${button(`${base}/rotate-secret`, 'Rotate the client secret', ctx.csrf)}</p>`;
        return ctx.render(`OAuth client ${client.name}`, body, noticeOf(ctx));
      },
    },
    {
      method: 'POST',
      path: '/oauth-clients/{id}',
      scope: WRITE,
      section: 'oauth-clients',
      async handle(ctx) {
        const id = ctx.params.id!;
        await admin.updateClient(id, {
          redirectUris: lines(field(ctx, 'redirectUris')),
          scopes: fields(ctx, 'scopes'),
        });
        return ctx.redirect(`/oauth-clients/${encodeURIComponent(id)}`, 'Saved.');
      },
    },
    {
      method: 'POST',
      path: '/oauth-clients/{id}/rotate-secret',
      scope: WRITE,
      section: 'oauth-clients',
      async handle(ctx) {
        const rotated = await admin.rotateClientSecret(ctx.params.id!, { overlapSeconds: 86_400 });
        return ctx.render(
          'Client secret rotated',
          html`${shownOnce('New client secret', rotated.secret)}<p>The previous secret keeps working for 24 hours. <a href="${ctx.base}/oauth-clients/${encodeURIComponent(rotated.client.id)}">Back to the client</a></p>`,
        );
      },
    },
    {
      method: 'GET',
      path: '/grants',
      scope: WRITE,
      section: 'grants',
      async handle(ctx) {
        const user = ctx.url.searchParams.get('user')?.trim() ?? '';
        const grants = await admin.listGrants(user ? { userId: user } : {});
        const rows = grants.map((g) => [
          g.clientName ?? g.clientId,
          g.userId ?? 'the client itself',
          g.scopes.join(' '),
          time(iso(g.createdAt)),
          time(iso(g.expiresAt)),
          button(
            `${ctx.base}/grants/${encodeURIComponent(g.id)}/revoke`,
            `Revoke ${g.clientName ?? g.clientId}`,
            ctx.csrf,
            {
              danger: true,
            },
          ),
        ]);
        const body = html`<form method="get" action="${ctx.base}/grants" class="filters">
  <div><label for="user">User (client id)</label><br><input id="user" name="user" value="${user}"></div>
  <button type="submit" class="secondary">Show</button>
</form>
${table('What users authorized', ['Application', 'User', 'Scopes', 'Since', 'Until', ''], rows)}`;
        return ctx.render('Grants', body, noticeOf(ctx));
      },
    },
    {
      method: 'POST',
      path: '/grants/{id}/revoke',
      scope: WRITE,
      section: 'grants',
      async handle(ctx) {
        await admin.revokeGrant(ctx.params.id!);
        return ctx.redirect('/grants', 'The grant is revoked: its tokens are refused from now on.');
      },
    },
  ];
}

/**
 * Access pages: API keys (create — the key shown once —, scopes, last use, revoke) and the grants users
 * gave to applications (revoke one, which ends its tokens). OAuth clients have pages of their own
 * (oauth-clients.ts).
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

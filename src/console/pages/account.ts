/**
 * A signed-in user's own page: the applications they authorized ("connected apps"), each revocable,
 * which ends every token the application holds for them.
 */
import { SwitchboardError } from '../../core/errors.js';
import { html } from '../../internal/html.js';
import type { OAuthAdmin } from '../../oauth/admin-service.js';
import { button, table, time } from '../html.js';
import { type ConsoleRoute, noticeOf } from '../route.js';

export function accountRoutes(admin: OAuthAdmin): ConsoleRoute[] {
  return [
    {
      method: 'GET',
      path: '/me',
      scope: 'user',
      section: 'me',
      async handle(ctx) {
        const grants = (await admin.listGrants({ userId: ctx.principal.userId! })).filter(
          (g) => g.userId !== null,
        );
        const rows = grants.map((g) => [
          g.clientName ?? g.clientId,
          g.scopes.join(' '),
          time(g.createdAt),
          button(
            `${ctx.base}/me/grants/${encodeURIComponent(g.id)}/revoke`,
            `Remove access of ${g.clientName ?? g.clientId}`,
            ctx.csrf,
            {
              danger: true,
            },
          ),
        ]);
        return ctx.render(
          'Connected apps',
          html`<p>The applications you allowed to act for you, and what they may do.</p>
${table('Applications with access', ['Application', 'Access', 'Since', ''], rows)}`,
          noticeOf(ctx),
        );
      },
    },
    {
      method: 'POST',
      path: '/me/grants/{id}/revoke',
      scope: 'user',
      section: 'me',
      async handle(ctx) {
        const id = ctx.params.id!;
        // Only a grant of this user: another's answers as if it did not exist.
        const own = await admin.listGrants({ userId: ctx.principal.userId! });
        if (!own.some((g) => g.id === id))
          throw new SwitchboardError('not_found', 'No such access of yours.');
        await admin.revokeGrant(id);
        return ctx.redirect('/me', 'Access removed: the application can no longer act for you.');
      },
    },
  ];
}

/**
 * A signed-in user's own page: the applications they authorized ("connected apps"), what each may do
 * in the words the consent page used, each removable after a confirmation, which ends every token the
 * application holds for them.
 */
import { SwitchboardError } from '../../core/errors.js';
import { html } from '../../internal/html.js';
import type { OAuthAdmin, OAuthGrantView } from '../../oauth/admin-service.js';
import { confirmed, confirmLink } from '../confirm.js';
import { table, time } from '../html.js';
import { type ConsoleRoute, noticeOf, type PageContext } from '../route.js';

export function accountRoutes(admin: OAuthAdmin): ConsoleRoute[] {
  /** Only a grant of this user: another's answers as if it did not exist. */
  async function ownGrant(ctx: PageContext): Promise<OAuthGrantView> {
    const own = await admin.listGrants({ userId: ctx.principal.userId! });
    const grant = own.find((g) => g.id === ctx.params.id);
    if (!grant) throw new SwitchboardError('not_found', 'No such access of yours.');
    return grant;
  }

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
          html`<ul class="scope-words">${g.scopes.map((s) => html`<li>${admin.scopes[s] ?? s}</li>`)}</ul>`,
          time(g.createdAt),
          confirmLink(`${ctx.base}/me/grants/${encodeURIComponent(g.id)}/revoke`, 'Remove access', {
            what: `of ${g.clientName ?? g.clientId}`,
          }),
        ]);
        return ctx.render(
          'Connected apps',
          html`<p>The applications you allowed to act for you, and what they may do.</p>
${table('Applications with access', ['Application', 'It may', 'Since', ''], rows)}`,
          noticeOf(ctx),
        );
      },
    },
    ...confirmed(
      {
        method: 'POST',
        path: '/me/grants/{id}/revoke',
        scope: 'user',
        section: 'me',
        async handle(ctx) {
          const grant = await ownGrant(ctx);
          await admin.revokeGrant(grant.id);
          return ctx.redirect('/me', 'Access removed: the application can no longer act for you.');
        },
      },
      async (ctx) => {
        const grant = await ownGrant(ctx);
        const app = grant.clientName ?? grant.clientId;
        return {
          title: `Remove the access of ${app}?`,
          text: `${app} can no longer act for you: what it holds stops working at once. To use it again, you allow it again.`,
          label: `Remove access of ${app}`,
          back: '/me',
        };
      },
    ),
  ];
}

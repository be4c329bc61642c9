/**
 * Access pages: API keys (create — the key shown once —, scopes, last use, revoke after a confirmation)
 * and the grants users gave to applications (one per user and app; found by the user's name or e-mail
 * and by the app; revoking one ends its tokens). OAuth clients have pages of their own (oauth-clients.ts).
 */

import type { Principal } from '../../core/auth.js';
import { SwitchboardError } from '../../core/errors.js';
import { html } from '../../internal/html.js';
import { ADMIN_SCOPE as WRITE } from '../../oauth/admin-routes.js';
import type { ApiKeyView, OAuthAdmin } from '../../oauth/admin-service.js';
import { confirmed, confirmLink } from '../confirm.js';
import type { Person } from '../console.js';
import {
  choiceField,
  type FormFields,
  type FormRefusal,
  formValue,
  formValues,
  refuse,
  statusOf,
  textField,
} from '../forms.js';
import { csrfField, table, time } from '../html.js';
import { type ConsoleRoute, field, fields, noticeOf, type PageContext } from '../route.js';

/** Finds people by id (the console's `people`), or nobody. */
export type PeopleOf = (ids: readonly string[]) => Promise<ReadonlyMap<string, Person>>;

/** A time as stored (epoch ms or ISO text) as ISO text. */
function iso(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? new Date(value).toISOString() : value;
}

/** A person as one line: `Ada Lovelace (ada@example.com)`, or their id when unknown. */
export function personLine(people: ReadonlyMap<string, Person>, id: string): string {
  const person = people.get(id);
  return person ? `${person.name}${person.email ? ` (${person.email})` : ''}` : id;
}

const KEY_FIELDS: FormFields = {
  name: { field: 'name', label: 'Name' },
  scopes: { field: 'scopes', label: 'Scopes' },
};

/** Whether the principal signed in to the console with this key: revoking it would end the session. */
const isSessionKey = (principal: Principal, key: ApiKeyView): boolean =>
  principal.kind === 'service' && principal.subject === key.id;

export function accessRoutes(
  admin: OAuthAdmin,
  scopes: readonly string[],
  people?: PeopleOf,
): ConsoleRoute[] {
  const scopeChoices = scopes.map((s) => ({ value: s, label: `${admin.scopes[s] ?? s} (${s})` }));

  async function keysPage(ctx: PageContext, refusal?: FormRefusal): Promise<Response> {
    const keys = await admin.listApiKeys();
    const rows = keys.map((k) => [
      html`<span class="name">${k.name}</span>`,
      html`<code>${k.prefix}…</code>`,
      k.scopes.length ? k.scopes.join(' ') : html`<em>none</em>`,
      time(iso(k.createdAt)),
      time(iso(k.lastUsedAt)),
      k.revokedAt
        ? html`revoked ${time(iso(k.revokedAt))}`
        : isSessionKey(ctx.principal, k)
          ? 'the key of this session'
          : confirmLink(`${ctx.base}/api-keys/${encodeURIComponent(k.id)}/revoke`, 'Revoke', {
              what: k.name,
            }),
    ]);
    const noScopes = refusal?.errors.scopes !== undefined;
    const body = html`<div class="keys">${table('API keys', ['Name', 'Key starts with', 'Scopes', 'Created', 'Last used', ''], rows)}</div>
<h2>New API key</h2>
<form method="post" action="${ctx.base}/api-keys">${csrfField(ctx.csrf)}
  ${textField({ name: 'name', label: 'Name', value: formValue(refusal, 'name'), required: true, hint: 'Say what uses it: "CRM sync".' }, refusal)}
  ${choiceField({ name: 'scopes', legend: 'Scopes', choices: scopeChoices, ticked: formValues(refusal, 'scopes') }, refusal)}
  ${noScopes && html`<p><label class="check"><input type="checkbox" name="noScopes" value="yes"> Create it without scopes (it can call nothing until it is given some)</label></p>`}
  <button type="submit">Create API key</button>
</form>`;
    return ctx.render('API keys', body, { ...noticeOf(ctx), ...statusOf(refusal) });
  }

  /** The key, refused when it is the one this session signed in with. */
  async function revocable(ctx: PageContext): Promise<ApiKeyView> {
    const key = (await admin.listApiKeys()).find((k) => k.id === ctx.params.id);
    if (!key) throw new SwitchboardError('not_found', 'There is no such API key.');
    if (isSessionKey(ctx.principal, key))
      throw new SwitchboardError(
        'conflict',
        `${key.name} is the key this console session is signed in with: revoking it would end the session. Sign in with another admin key to revoke it.`,
      );
    return key;
  }

  async function grantsPage(ctx: PageContext): Promise<Response> {
    const user = ctx.url.searchParams.get('user')?.trim() ?? '';
    const app = ctx.url.searchParams.get('app')?.trim() ?? '';
    const grants = await admin.listGrants();
    const found = await (people?.(grants.flatMap((g) => (g.userId ? [g.userId] : []))) ?? new Map());
    const matches = (text: string, ...values: (string | null | undefined)[]) =>
      !text || values.some((v) => v?.toLowerCase().includes(text.toLowerCase()));
    const shown = grants.filter(
      (g) =>
        matches(app, g.clientName, g.clientId) &&
        matches(
          user,
          g.userId,
          g.userId && found.get(g.userId)?.name,
          g.userId && found.get(g.userId)?.email,
        ),
    );
    const apps = [...new Map(grants.map((g) => [g.clientId, g.clientName ?? g.clientId])).values()].sort();
    const rows = shown.map((g) => [
      g.clientName ?? g.clientId,
      g.userId ? personLine(found, g.userId) : 'the app itself',
      g.scopes.join(' '),
      time(iso(g.createdAt)),
      time(iso(g.expiresAt)),
      confirmLink(`${ctx.base}/grants/${encodeURIComponent(g.id)}/revoke`, 'Revoke', {
        what: g.clientName ?? g.clientId,
      }),
    ]);
    const body = html`<form method="get" action="${ctx.base}/grants" class="filters">
  <div><label for="user">User (name or e-mail)</label><br><input id="user" name="user" value="${user}"></div>
  <div><label for="app">Application</label><br><input id="app" name="app" value="${app}" list="apps"><datalist id="apps">${apps.map((a) => html`<option value="${a}"></option>`)}</datalist></div>
  <button type="submit" class="secondary">Show</button>
</form>
${table('What users authorized', ['Application', 'User', 'Scopes', 'Since', 'Until', ''], rows)}`;
    return ctx.render('Grants', body, noticeOf(ctx));
  }

  return [
    { method: 'GET', path: '/api-keys', scope: WRITE, section: 'api-keys', handle: (ctx) => keysPage(ctx) },
    {
      method: 'POST',
      path: '/api-keys',
      scope: WRITE,
      section: 'api-keys',
      refused: { fields: KEY_FIELDS, show: keysPage },
      async handle(ctx) {
        const chosen = fields(ctx, 'scopes');
        // A key of no scope calls nothing: said first, and made only when the operator says so.
        if (chosen.length === 0 && field(ctx, 'noScopes') !== 'yes')
          throw refuse({
            scopes:
              'Tick at least one scope: a key without scopes is refused everywhere. To make one anyway, tick "Create it without scopes" below.',
          });
        const created = await admin.createApiKey({ name: field(ctx, 'name'), scopes: chosen });
        return ctx.redirectShowing(
          '/api-keys',
          { label: `API key ${created.apiKey.name}`, value: created.key },
          `The key ${created.apiKey.name} is created.`,
        );
      },
    },
    ...confirmed(
      {
        method: 'POST',
        path: '/api-keys/{id}/revoke',
        scope: WRITE,
        section: 'api-keys',
        async handle(ctx) {
          const key = await revocable(ctx);
          await admin.revokeApiKey(key.id);
          return ctx.redirect(
            '/api-keys',
            `${key.name} is revoked: requests with it are refused from now on.`,
          );
        },
      },
      async (ctx) => {
        const key = await revocable(ctx);
        return {
          title: `Revoke the key ${key.name}?`,
          text: html`Requests with <strong>${key.name}</strong> (<code>${key.prefix}…</code>) are refused from now on, and console sessions signed in with it end. It cannot be undone: whoever uses it needs a new key.`,
          label: `Revoke ${key.name}`,
          back: '/api-keys',
        };
      },
    ),
    { method: 'GET', path: '/grants', scope: WRITE, section: 'grants', handle: grantsPage },
    ...confirmed(
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
      async (ctx) => {
        const grant = (await admin.listGrants()).find((g) => g.id === ctx.params.id);
        if (!grant) throw new SwitchboardError('not_found', 'There is no such grant, or it has ended.');
        const found = grant.userId ? await (people?.([grant.userId]) ?? new Map()) : new Map();
        const who = grant.userId ? personLine(found, grant.userId) : 'the app itself';
        const app = grant.clientName ?? grant.clientId;
        return {
          title: `Revoke what ${who} allowed ${app}?`,
          text: html`${app} can no longer act for ${who}: its tokens are refused at once. To use it again, ${who} must allow it again.`,
          label: `Revoke ${app}’s access`,
          back: '/grants',
        };
      },
    ),
  ];
}

/**
 * Webhook pages: the endpoints with their health (create one, the secret shown once), a search for a
 * delivery by its id or its event's, and the event types; an endpoint's page (webhook-endpoint.ts) and
 * a delivery's (webhook-delivery.ts).
 */
import { html } from '../../internal/html.js';
import type { WebhookAdmin } from '../../webhooks/admin-service.js';
import { WEBHOOK_READ_SCOPE as READ, WEBHOOK_WRITE_SCOPE as WRITE } from '../../webhooks/scopes.js';
import { type FormRefusal, formValue, formValues, statusOf, textField } from '../forms.js';
import { csrfField, table, time } from '../html.js';
import { type ConsoleRoute, field, fields, noticeOf, type PageContext } from '../route.js';
import { deliveryRoutes } from './webhook-delivery.js';
import { deliveryPath, endpointPath, endpointRoutes } from './webhook-endpoint.js';
import { eventTypePicker, healthCell } from './webhook-parts.js';

export function webhookRoutes(admin: WebhookAdmin): ConsoleRoute[] {
  const section = 'webhooks';
  const at = endpointPath;
  const endpointForm = (ctx: PageContext, refusal?: FormRefusal) => html`<h2 id="new">New endpoint</h2>
<form method="post" action="${ctx.base}/webhooks">${csrfField(ctx.csrf)}
  ${textField({ name: 'url', label: 'Receiver URL', value: formValue(refusal, 'url'), hint: 'https://bot.example.com/hooks', required: true, size: 60 }, refusal)}
  ${textField({ name: 'description', label: 'Description', value: formValue(refusal, 'description'), size: 60 }, refusal)}
  ${eventTypePicker('Event types', admin.eventTypes(), formValues(refusal, 'eventTypes', ['*']), refusal?.errors.eventTypes)}
  <button type="submit">Create endpoint</button>
</form>`;

  /** The endpoints with their health, the search, and the form that creates one (kept when refused). */
  async function listPage(ctx: PageContext, refusal?: FormRefusal): Promise<Response> {
    const { items } = await admin.listEndpoints({ offset: 0, limit: 100 });
    const summaries = new Map(
      (await admin.endpointSummaries(items.map((e) => e.id))).map((s) => [s.endpointId, s]),
    );
    const rows = items.map((e) => [
      html`<a href="${at(ctx, e.id)}">${e.url}</a>`,
      e.eventTypes.join(', '),
      e.enabled ? 'enabled' : html`<span class="status-dead">disabled (${e.disabledReason})</span>`,
      healthCell(summaries.get(e.id)),
      time(e.createdAt),
    ]);
    return ctx.render(
      'Webhook endpoints',
      html`${table('Endpoints', ['Receiver', 'Event types', 'State', 'Health', 'Created'], rows)}${findForm(ctx)}${endpointForm(ctx, refusal)}`,
      { ...noticeOf(ctx), ...statusOf(refusal) },
    );
  }

  const findForm = (
    ctx: PageContext,
    value = '',
  ) => html`<form method="get" action="${ctx.base}/deliveries" class="filters" role="search">
  <div><label for="find">Find a delivery by its id or its event's id</label><br><input id="find" name="q" type="search" required size="34" value="${value}"></div>
  <button type="submit" class="secondary">Find</button>
</form>`;

  return [
    {
      method: 'GET',
      path: '/deliveries',
      scope: READ,
      section,
      async handle(ctx) {
        const q = (ctx.url.searchParams.get('q') ?? '').trim();
        const found = q ? await admin.getDelivery(q).catch(() => null) : null;
        if (found) {
          return ctx.redirect(
            `/webhooks/${encodeURIComponent(found.endpointId)}/deliveries/${encodeURIComponent(found.id)}`,
          );
        }
        const { items } = q
          ? await admin.listDeliveries({ eventId: q }, { offset: 0, limit: 100 })
          : { items: [] };
        const rows = items.map((d) => [
          html`<a href="${deliveryPath(ctx, d.endpointId, d.id)}">${d.id}</a>`,
          html`<a href="${at(ctx, d.endpointId)}">${d.endpointId}</a>`,
          d.eventType,
          html`<span class="status-${d.status}">${d.status}</span>`,
          time(d.createdAt),
        ]);
        const body = html`${findForm(ctx, q)}${
          q && rows.length === 0
            ? html`<p class="info" role="status">No delivery has the id <code>${q}</code>, and no event with that id was delivered.</p>`
            : table(`Deliveries of event ${q}`, ['Delivery', 'Endpoint', 'Event', 'Status', 'Created'], rows)
        }`;
        return ctx.render('Find a delivery', body);
      },
    },
    {
      method: 'GET',
      path: '/webhooks',
      scope: READ,
      section,
      handle: (ctx) => listPage(ctx),
    },
    {
      method: 'POST',
      path: '/webhooks',
      scope: WRITE,
      section,
      refused: {
        fields: {
          url: { field: 'url', label: 'Receiver URL' },
          description: { field: 'description', label: 'Description' },
          eventTypes: { field: 'eventTypes', label: 'Event types' },
        },
        show: listPage,
      },
      async handle(ctx) {
        const description = field(ctx, 'description');
        const created = await admin.createEndpoint({
          url: field(ctx, 'url'),
          eventTypes: fields(ctx, 'eventTypes'),
          ...(description ? { description } : {}),
        });
        // See Other to the new endpoint, the secret shown there once: a reload creates nothing.
        return ctx.redirectShowing(
          `/webhooks/${encodeURIComponent(created.endpoint.id)}`,
          { label: 'Signing secret', value: created.secret },
          'The endpoint is created and enabled.',
        );
      },
    },
    ...endpointRoutes(admin),
    ...deliveryRoutes(admin),
    {
      method: 'GET',
      path: '/event-types',
      scope: READ,
      section: 'event-types',
      async handle(ctx) {
        // An index by resource (the part before the dot), then each type with its example folded.
        const all = admin.eventTypes();
        const groups = new Map<string, string[]>();
        for (const type of all) {
          const group = type.split('.')[0]!;
          groups.set(group, [...(groups.get(group) ?? []), type]);
        }
        const index = html`<nav aria-label="Event types by resource"><dl>${[...groups].map(
          ([group, types]) =>
            html`<dt>${group}</dt><dd>${types.map((type, i) => html`${i ? ' · ' : ''}<a href="#${type}"><code>${type}</code></a>`)}</dd>`,
        )}</dl></nav>`;
        const types = all.map(
          (type) =>
            html`<section id="${type}"><h2><code>${type}</code></h2><details><summary>Example data</summary><pre aria-label="Example data of ${type}">${JSON.stringify(admin.eventExample(type), null, 2)}</pre></details></section>`,
        );
        return ctx.render(
          'Event types',
          html`<p>What an endpoint can subscribe to, each with an example of its <code>data</code>.</p>${index}${types}`,
        );
      },
    },
  ];
}

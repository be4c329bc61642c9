/**
 * Webhook pages: endpoints (create with the secret shown once, event types, enable / disable, secret
 * rotation, test event, delete), each endpoint's health and delivery log with filters, a delivery's
 * exact request and attempts, replay of one or of every failed one since a time, and the event types.
 */
import type { WebhookDeliveryFilter } from '../../core/storage/index.js';
import { type Html, html } from '../../internal/html.js';
import type { WebhookAdmin } from '../../webhooks/admin-service.js';
import { WEBHOOK_READ_SCOPE as READ, WEBHOOK_WRITE_SCOPE as WRITE } from '../../webhooks/scopes.js';
import { button, checkboxes, csrfField, shownOnce, table, time } from '../html.js';
import { type ConsoleRoute, field, fields, noticeOf, type PageContext } from '../route.js';

const PAGE_SIZE = 25;

export function webhookRoutes(admin: WebhookAdmin): ConsoleRoute[] {
  const section = 'webhooks';
  /** Where an endpoint's pages are, its id in the path. */
  const at = (ctx: PageContext, id: string) => `${ctx.base}/webhooks/${encodeURIComponent(id)}`;
  const endpointForm = (ctx: PageContext) => html`<h2>New endpoint</h2>
<form method="post" action="${ctx.base}/webhooks">${csrfField(ctx.csrf)}
  <div class="field"><label for="url">Receiver URL</label><br><input id="url" name="url" type="url" required size="60" placeholder="https://bot.example.com/hooks"></div>
  <div class="field"><label for="description">Description</label><br><input id="description" name="description" size="60"></div>
  ${checkboxes('eventTypes', 'Event types', ['*', ...admin.eventTypes()], new Set(['*']))}
  <button type="submit">Create endpoint</button>
</form>`;

  return [
    {
      method: 'GET',
      path: '/webhooks',
      scope: READ,
      section,
      async handle(ctx) {
        const { items } = await admin.listEndpoints({ offset: 0, limit: 100 });
        const rows = items.map((e) => [
          html`<a href="${at(ctx, e.id)}">${e.url}</a>`,
          e.eventTypes.join(', '),
          e.enabled ? 'enabled' : html`<span class="status-dead">disabled (${e.disabledReason})</span>`,
          time(e.createdAt),
        ]);
        return ctx.render(
          'Webhook endpoints',
          html`${table('Endpoints', ['Receiver', 'Event types', 'State', 'Created'], rows)}${endpointForm(ctx)}`,
          noticeOf(ctx),
        );
      },
    },
    {
      method: 'POST',
      path: '/webhooks',
      scope: WRITE,
      section,
      async handle(ctx) {
        const description = field(ctx, 'description');
        const created = await admin.createEndpoint({
          url: field(ctx, 'url'),
          eventTypes: fields(ctx, 'eventTypes'),
          ...(description ? { description } : {}),
        });
        return ctx.render(
          'Endpoint created',
          html`${shownOnce('Signing secret', created.secret)}
<p><a href="${at(ctx, created.endpoint.id)}">Open the endpoint ${created.endpoint.url}</a></p>`,
          { notice: 'The endpoint is created and enabled.' },
        );
      },
    },
    {
      method: 'GET',
      path: '/webhooks/{id}',
      scope: READ,
      section,
      async handle(ctx) {
        const id = ctx.params.id!;
        const endpoint = await admin.getEndpoint(id);
        const health = await admin.endpointHealth(id);
        const query = ctx.url.searchParams;
        const pageNumber = Math.max(1, Number.parseInt(query.get('page') ?? '1', 10) || 1);
        const filter: WebhookDeliveryFilter = {
          endpointId: id,
          ...(query.get('event_type') ? { eventType: query.get('event_type')! } : {}),
          ...(isStatus(query.get('status')) ? { status: query.get('status') as 'pending' } : {}),
          ...(query.get('from') ? { createdFrom: Date.parse(utc(query.get('from')!)) } : {}),
          ...(query.get('to') ? { createdBefore: Date.parse(utc(query.get('to')!)) } : {}),
        };
        const deliveries = await admin.listDeliveries(filter, {
          offset: (pageNumber - 1) * PAGE_SIZE,
          limit: PAGE_SIZE,
        });
        const base = at(ctx, id);
        const delivery = (deliveryId: string) => `${base}/deliveries/${encodeURIComponent(deliveryId)}`;
        const rate = health.successRate === null ? '—' : `${Math.round(health.successRate * 1000) / 10}%`;
        const failures = health.lastFailures.map((f) => [
          html`<a href="${delivery(f.deliveryId)}">${f.eventType}</a>`,
          time(f.startedAt),
          f.statusCode ?? '—',
          f.error ?? f.responseExcerpt ?? '',
        ]);
        const rows = deliveries.items.map((d) => [
          html`<a href="${delivery(d.id)}">${d.eventType}</a>`,
          html`<span class="status-${d.status}">${d.status}</span>`,
          d.attempts,
          d.lastStatusCode ?? '—',
          time(d.createdAt),
        ]);
        const keep = new URLSearchParams(query);
        const pageLink = (n: number, label: string): Html => {
          keep.set('page', String(n));
          return html`<a href="${base}?${keep.toString()}">${label}</a>`;
        };
        const pages = Math.max(1, Math.ceil(deliveries.total / PAGE_SIZE));
        const pager = html`<p class="pager">${pageNumber > 1 && pageLink(pageNumber - 1, 'Newer')}
<span>Page ${pageNumber} of ${pages} (${deliveries.total} deliveries)</span>${pageNumber < pages && pageLink(pageNumber + 1, 'Older')}</p>`;
        const select = (name: string, label: string, values: readonly string[]) =>
          html`<div><label for="${name}">${label}</label><br><select id="${name}" name="${name}"><option value="">any</option>${values.map(
            (v) => html`<option${query.get(name) === v && html` selected`}>${v}</option>`,
          )}</select></div>`;
        const input = (name: string, label: string) =>
          html`<div><label for="${name}">${label}</label><br><input id="${name}" name="${name}" type="datetime-local" value="${query.get(name) ?? ''}"></div>`;
        const secrets = endpoint.secrets.map(
          (s, i) =>
            html`${i > 0 && html`<br>`}made ${time(s.createdAt)}${s.expiresAt && html`, ends ${time(s.expiresAt)}`}`,
        );
        const body = html`<dl>
  <dt>Receiver</dt><dd><code>${endpoint.url}</code></dd>
  <dt>Description</dt><dd>${endpoint.description || '—'}</dd>
  <dt>State</dt><dd>${endpoint.enabled ? 'enabled' : `disabled (${endpoint.disabledReason})`}</dd>
  <dt>Event types</dt><dd>${endpoint.eventTypes.join(', ')}</dd>
  <dt>API version</dt><dd>v${endpoint.apiVersion}: records are sent as <code>/api/v${endpoint.apiVersion}</code> shows them</dd>
  <dt>Signing secrets</dt><dd>${secrets}</dd>
</dl>
<h2>Health, last 24 hours</h2>
<dl>
  <dt>Delivered</dt><dd>${health.delivered}</dd>
  <dt>Failed</dt><dd>${health.failed}</dd>
  <dt>Waiting</dt><dd>${health.pending}</dd>
  <dt>Success rate</dt><dd>${rate}</dd>
  ${health.disabledReason && html`<dt>Disabled because</dt><dd>${health.disabledReason}</dd>`}
</dl>
${table('Last failures', ['Event', 'When', 'Status', 'Error'], failures)}
<h2>Actions</h2>
<p>${button(`${base}/test-event`, 'Send a test event', ctx.csrf)}
${button(`${base}/${endpoint.enabled ? 'disable' : 'enable'}`, endpoint.enabled ? 'Disable' : 'Enable', ctx.csrf)}
${button(`${base}/rotate-secret`, 'Rotate the secret (old one signs for 24 h more)', ctx.csrf)}</p>
<form method="post" action="${base}/replay-failed" class="filters">${csrfField(ctx.csrf)}
  <div><label for="since">Replay every failed delivery since (UTC)</label><br><input id="since" name="since" type="datetime-local" required></div>
  <button type="submit">Replay failed</button>
</form>
<form method="post" action="${base}/event-types">${csrfField(ctx.csrf)}
  ${checkboxes('eventTypes', 'Event types it receives', ['*', ...admin.eventTypes()], new Set(endpoint.eventTypes))}
  <button type="submit">Save event types</button>
</form>
<form method="post" action="${base}/delete" data-confirm="Delete this endpoint and its delivery log?">${csrfField(ctx.csrf)}<button type="submit" class="danger">Delete endpoint</button></form>
<h2 id="log">Delivery log</h2>
<form method="get" action="${base}" class="filters">
  ${select('event_type', 'Event type', admin.eventTypes())}
  ${select('status', 'Status', ['pending', 'succeeded', 'dead'])}
  ${input('from', 'From (UTC)')}
  ${input('to', 'Before (UTC)')}
  <button type="submit" class="secondary">Filter</button>
</form>
${table('Deliveries, newest first', ['Event', 'Status', 'Attempts', 'Last status', 'Created'], rows)}
${pager}`;
        return ctx.render(`Endpoint ${endpoint.url}`, body, noticeOf(ctx));
      },
    },
    action('test-event', async (id) => {
      await admin.sendTestEvent(id);
      return 'A test event is on its way; it appears in the log below.';
    }),
    action('disable', async (id) => {
      await admin.updateEndpoint(id, { enabled: false });
      return 'The endpoint is disabled: nothing is sent to it until it is enabled.';
    }),
    action('enable', async (id) => {
      await admin.updateEndpoint(id, { enabled: true });
      return 'The endpoint is enabled.';
    }),
    action('event-types', async (id, ctx) => {
      await admin.updateEndpoint(id, { eventTypes: fields(ctx, 'eventTypes') });
      return 'Event types saved.';
    }),
    action('replay-failed', async (id, ctx) => {
      const { requeued } = await admin.resendDeliveries({
        endpointId: id,
        from: utc(field(ctx, 'since')),
        to: new Date(ctx.now + 1000).toISOString(),
        status: 'dead',
      });
      return `${requeued} failed ${requeued === 1 ? 'delivery is' : 'deliveries are'} sent again.`;
    }),
    {
      method: 'POST',
      path: '/webhooks/{id}/rotate-secret',
      scope: WRITE,
      section,
      async handle(ctx) {
        const rotated = await admin.rotateSecret(ctx.params.id!, { overlapSeconds: 86_400 });
        return ctx.render(
          'Secret rotated',
          html`${shownOnce('New signing secret', rotated.secret)}
<p>The previous secret keeps signing beside it for 24 hours. <a href="${at(ctx, rotated.endpoint.id)}">Back to the endpoint</a></p>`,
        );
      },
    },
    {
      method: 'POST',
      path: '/webhooks/{id}/delete',
      scope: WRITE,
      section,
      async handle(ctx) {
        await admin.deleteEndpoint(ctx.params.id!);
        return ctx.redirect('/webhooks', 'The endpoint is deleted.');
      },
    },
    {
      method: 'GET',
      path: '/webhooks/{id}/deliveries/{delivery}',
      scope: READ,
      section,
      async handle(ctx) {
        const delivery = await admin.getDelivery(ctx.params.delivery!);
        const attempts = await admin.listAttempts(delivery.id);
        const last = attempts.at(-1);
        const headers = last?.requestHeaders
          ? Object.entries(last.requestHeaders)
              .map(([k, v]) => `${k}: ${v}`)
              .join('\n')
          : '';
        const rows = attempts.map((a) => [
          a.number,
          time(a.startedAt),
          a.succeeded
            ? html`<span class="status-succeeded">succeeded</span>`
            : html`<span class="status-failed">failed</span>`,
          a.statusCode ?? '—',
          `${a.durationMs} ms`,
          a.error ?? '',
          a.responseExcerpt ? html`<code>${a.responseExcerpt.slice(0, 300)}</code>` : '',
        ]);
        const endpoint = at(ctx, delivery.endpointId);
        const replay = `${endpoint}/deliveries/${encodeURIComponent(delivery.id)}/replay`;
        const body = html`<p><a href="${endpoint}#log">Back to the endpoint's log</a></p>
<dl>
  <dt>Event</dt><dd><code>${delivery.eventType}</code> (${delivery.eventId})</dd>
  <dt>Status</dt><dd><span class="status-${delivery.status}">${delivery.status}</span></dd>
  <dt>Created</dt><dd>${time(delivery.createdAt)}</dd>
  <dt>Next attempt</dt><dd>${time(delivery.nextAttemptAt)}</dd>
</dl>
${delivery.status !== 'pending' && html`<p>${button(replay, 'Replay this delivery', ctx.csrf)}</p>`}
<h2>Request sent</h2>
${headers ? html`<pre aria-label="Headers of the last attempt">${headers}</pre>` : html`<p>No attempt yet.</p>`}
<pre aria-label="Body">${pretty(delivery.payload)}</pre>
${table('Attempts', ['#', 'Started', 'Outcome', 'Status', 'Duration', 'Error', 'Response'], rows)}`;
        return ctx.render(`Delivery ${delivery.id}`, body, noticeOf(ctx));
      },
    },
    {
      method: 'POST',
      path: '/webhooks/{id}/deliveries/{delivery}/replay',
      scope: WRITE,
      section,
      async handle(ctx) {
        const delivery = await admin.resendDelivery(ctx.params.delivery!);
        return ctx.redirect(
          `/webhooks/${encodeURIComponent(delivery.endpointId)}/deliveries/${encodeURIComponent(delivery.id)}`,
          'The delivery is sent again.',
        );
      },
    },
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

  /** A change of one endpoint that answers with a notice on the endpoint's page. */
  function action(name: string, run: (id: string, ctx: PageContext) => Promise<string>): ConsoleRoute {
    return {
      method: 'POST',
      path: `/webhooks/{id}/${name}`,
      scope: WRITE,
      section,
      async handle(ctx) {
        const id = ctx.params.id!;
        return ctx.redirect(`/webhooks/${encodeURIComponent(id)}`, await run(id, ctx));
      },
    };
  }
}

function isStatus(value: string | null): boolean {
  return value === 'pending' || value === 'succeeded' || value === 'dead';
}

/** A `datetime-local` value (no zone) read as UTC; anything else as given. */
function utc(value: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)
    ? `${value.length === 16 ? `${value}:00` : value}Z`
    : value;
}

function pretty(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

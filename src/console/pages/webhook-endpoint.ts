/**
 * An endpoint's page, its delivery log first (as Svix and Stripe lead with it): the log with its
 * filters and search by event or delivery id, the health of the last 24 hours with its hourly chart,
 * the actions (test event of a chosen kind, disable / enable, rotate, replay the failed since a time),
 * its details, the event types it receives, and delete.
 */
import type { WebhookDeliveryFilter } from '../../core/storage/index.js';
import { type Html, html } from '../../internal/html.js';
import type { WebhookAdmin } from '../../webhooks/admin-service.js';
import { WEBHOOK_READ_SCOPE as READ, WEBHOOK_WRITE_SCOPE as WRITE } from '../../webhooks/scopes.js';
import { confirmed, confirmLink } from '../confirm.js';
import { type FormRefusal, formValue, formValues, refuse, statusOf } from '../forms.js';
import { button, csrfField, table, time } from '../html.js';
import { type ConsoleRoute, field, fields, noticeOf, type PageContext } from '../route.js';
import { orderingRoutes, orderingSection } from './webhook-ordering.js';
import { eventTypePicker, hourlyChart, percent, UTC_HINT, utcInput } from './webhook-parts.js';
import { policyForm, policyRoute } from './webhook-policy.js';

const PAGE_SIZE = 25;
const STATUSES = ['pending', 'succeeded', 'dead'] as const;

/** Where an endpoint's pages are, its id in the path. */
export function endpointPath(ctx: PageContext, id: string): string {
  return `${ctx.base}/webhooks/${encodeURIComponent(id)}`;
}

/** Where a delivery's page is. */
export function deliveryPath(ctx: PageContext, endpointId: string, deliveryId: string): string {
  return `${endpointPath(ctx, endpointId)}/deliveries/${encodeURIComponent(deliveryId)}`;
}

export function endpointRoutes(admin: WebhookAdmin): ConsoleRoute[] {
  const section = 'webhooks';
  /** The endpoint's page; a refused form of it (event types, replay) comes back with its errors. */
  async function endpointPage(ctx: PageContext, refusal?: FormRefusal): Promise<Response> {
    const id = ctx.params.id!;
    const endpoint = await admin.getEndpoint(id);
    const query = ctx.url.searchParams;
    const search = (query.get('q') ?? '').trim();
    // A delivery id opens that delivery; anything else is an event id.
    if (search) {
      const found = await admin.getDelivery(search).catch(() => null);
      if (found?.endpointId === id)
        return ctx.redirect(`/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(found.id)}`);
    }
    const health = await admin.endpointHealth(id);
    const held = await admin.listHeldSubjects(id);
    const pageNumber = Math.max(1, Number.parseInt(query.get('page') ?? '1', 10) || 1);
    const problems: string[] = [];
    const timeFilter = (name: 'from' | 'to', label: string): number | undefined => {
      const value = query.get(name);
      if (!value) return undefined;
      const iso = utcInput(value);
      if (iso === null) problems.push(`${label} "${value}" is not a time such as 2026-01-31 14:05 (UTC).`);
      return iso === null ? undefined : Date.parse(iso);
    };
    const status = query.get('status');
    const createdFrom = timeFilter('from', 'From');
    const createdBefore = timeFilter('to', 'Before');
    const filter: WebhookDeliveryFilter = {
      endpointId: id,
      ...(query.get('event_type') ? { eventType: query.get('event_type')! } : {}),
      ...(STATUSES.includes(status as 'dead') ? { status: status as 'dead' } : {}),
      ...(createdFrom !== undefined ? { createdFrom } : {}),
      ...(createdBefore !== undefined ? { createdBefore } : {}),
      ...(search ? { eventId: search } : {}),
    };
    const deliveries = await admin.listDeliveries(filter, {
      offset: (pageNumber - 1) * PAGE_SIZE,
      limit: PAGE_SIZE,
    });
    const base = endpointPath(ctx, id);
    const delivery = (deliveryId: string) => deliveryPath(ctx, id, deliveryId);
    const rows = deliveries.items.map((d) => [
      html`<a href="${delivery(d.id)}">${d.eventType}</a>`,
      html`<span class="status-${d.status}">${d.status}</span>`,
      d.attempts,
      d.lastStatusCode ?? '—',
      time(d.createdAt),
      d.status === 'pending' ? time(d.nextAttemptAt) : '—',
      // Each row's button names its delivery for screen readers, who hear the buttons listed apart.
      html`<form method="post" action="${delivery(d.id)}/retry" class="inline">${csrfField(ctx.csrf)}<button type="submit" class="secondary">Retry now<span class="visually-hidden"> ${d.eventType} ${d.id}</span></button></form>`,
    ]);
    const keep = new URLSearchParams(query);
    const pageLink = (n: number, label: string): Html => {
      keep.set('page', String(n));
      return html`<a href="${base}?${keep.toString()}#log">${label}</a>`;
    };
    const pages = Math.max(1, Math.ceil(deliveries.total / PAGE_SIZE));
    const pager = html`<p class="pager">${pageNumber > 1 && pageLink(pageNumber - 1, 'Newer')}
<span>Page ${pageNumber} of ${pages} (${deliveries.total} deliveries)</span>${pageNumber < pages && pageLink(pageNumber + 1, 'Older')}</p>`;
    const select = (name: string, label: string, values: readonly string[]) =>
      html`<div><label for="${name}">${label}</label><br><select id="${name}" name="${name}"><option value="">any</option>${values.map(
        (v) => html`<option${query.get(name) === v && html` selected`}>${v}</option>`,
      )}</select></div>`;
    const input = (name: string, label: string, hint: string, type = 'text') =>
      html`<div><label for="${name}">${label}</label><br><input id="${name}" name="${name}" type="${type}" value="${query.get(name) ?? ''}" aria-describedby="${name}-hint" size="22"><br><small id="${name}-hint">${hint}</small></div>`;
    const failures = health.lastFailures.map((f) => [
      html`<a href="${delivery(f.deliveryId)}">${f.eventType}</a>`,
      time(f.startedAt),
      f.statusCode ?? '—',
      f.error ?? f.responseExcerpt ?? '',
    ]);
    const secrets = endpoint.secrets.map(
      (s, i) =>
        html`${i > 0 && html`<br>`}made ${time(s.createdAt)}${s.expiresAt && html`, ends ${time(s.expiresAt)}`}`,
    );
    const replayed = query.get('replayed');
    const since = utcInput(query.get('since') ?? '');
    const replayNotice =
      replayed === '0' &&
      html`<p class="info" role="status">No failed deliveries since ${since ? time(since) : 'then'}: nothing was sent again.</p>`;
    const last = health.lastAttempt;
    const sinceError = refusal?.errors.since;
    // Each form shows its own refusal only: a refused policy leaves the event types as they are.
    const policyRefusal = refusal?.values.has('retrySchedule') ? refusal : undefined;
    const otherRefusal = policyRefusal ? undefined : refusal;
    const body = html`${replayNotice}${problems.map((p) => html`<p class="error" role="alert">${p}</p>`)}
<p>${endpoint.enabled ? 'Enabled' : html`<span class="status-dead">Disabled (${endpoint.disabledReason})</span>`} · receives ${endpoint.eventTypes.join(', ')} · success rate ${percent(health.successRate)} in 24 h${held.length > 0 && html` · <a href="#ordering" class="status-failed">${held.length} held ${held.length === 1 ? 'subject' : 'subjects'}</a>`} · <a href="#health">health</a> · <a href="#actions">actions</a> · <a href="#details">details</a></p>
<h2 id="log">Delivery log</h2>
<form method="get" action="${base}#log" class="filters">
  ${input('q', 'Event or delivery id', 'A delivery id opens it; an event id lists its delivery', 'search')}
  ${select('event_type', 'Event type', admin.eventTypes())}
  ${select('status', 'Status', STATUSES)}
  ${input('from', 'From (UTC)', UTC_HINT)}
  ${input('to', 'Before (UTC)', UTC_HINT)}
  <button type="submit" class="secondary">Filter</button>
</form>
${table('Deliveries, newest first', ['Event', 'Status', 'Attempts', 'Last status', 'Created', 'Next attempt', 'Action'], rows)}
${pager}
<h2 id="health">Health, last 24 hours</h2>
<dl>
  <dt>Success rate</dt><dd>${percent(health.successRate)} of attempts</dd>
  <dt>Attempts</dt><dd>${health.attemptsSucceeded} succeeded, <span class="${health.attemptsFailed > 0 ? 'status-failed' : ''}">${health.attemptsFailed} failed</span></dd>
  <dt>Last attempt</dt><dd>${last ? html`<span class="status-${last.succeeded ? 'succeeded' : 'failed'}">${last.succeeded ? 'succeeded' : 'failed'}</span>${last.statusCode !== null && html` (${last.statusCode})`} ${time(last.startedAt)}` : 'none yet'}</dd>
  <dt>Deliveries</dt><dd>${health.delivered} delivered, ${health.failed} given up (dead); ${health.pending} waiting now</dd>
  ${health.disabledReason && html`<dt>Disabled because</dt><dd>${health.disabledReason}</dd>`}
</dl>
${hourlyChart(health.hours)}
${table('Last failures', ['Event', 'When', 'Status', 'Error'], failures)}
${orderingSection(ctx, endpoint, held, base)}
<h2 id="actions">Actions</h2>
<form method="post" action="${base}/test-event" class="filters">${csrfField(ctx.csrf)}
  <div><label for="test-type">Event type of the test</label><br><select id="test-type" name="eventType">${admin
    .eventTypes()
    .map(
      (type) => html`<option${type === 'webhook.test' && html` selected`}>${type}</option>`,
    )}</select></div>
  <button type="submit">Send a test event</button>
</form>
<p>${endpoint.enabled ? confirmLink(`${base}/disable`, 'Disable', { what: endpoint.url }) : button(`${base}/enable`, 'Enable', ctx.csrf)}
${confirmLink(`${base}/rotate-secret`, 'Rotate the secret', { danger: false, what: endpoint.url })}</p>
<form method="post" action="${base}/replay-failed" class="filters">${csrfField(ctx.csrf)}
  <div${sinceError && html` class="has-error"`}><label for="since">Replay every failed delivery since (UTC)</label><br>${sinceError && html`<p class="field-error" id="since-error">${sinceError}</p>`}<input id="since" name="since" required size="22" value="${formValue(refusal, 'since')}" aria-describedby="${sinceError ? 'since-error ' : ''}since-hint"${sinceError && html` aria-invalid="true"`}><br><small id="since-hint">Dead ones, and those waiting for a retry after a failure. ${UTC_HINT}</small></div>
  <button type="submit">Replay failed</button>
</form>
<h2 id="details">Details</h2>
<dl>
  <dt>Receiver</dt><dd><code>${endpoint.url}</code></dd>
  <dt>Description</dt><dd>${endpoint.description || '—'}</dd>
  <dt>State</dt><dd>${endpoint.enabled ? 'enabled' : `disabled (${endpoint.disabledReason})`}</dd>
  <dt>Event types</dt><dd>${endpoint.eventTypes.join(', ')}</dd>
  <dt>API version</dt><dd>v${endpoint.apiVersion}: records are sent as <code>/api/v${endpoint.apiVersion}</code> shows them</dd>
  <dt>Signature</dt><dd>${
    endpoint.signature === 'ed25519'
      ? html`Ed25519, Standard Webhooks <code>v1a</code>: receivers verify with the public keys at <a href="/.well-known/webhook-keys"><code>/.well-known/webhook-keys</code></a>`
      : html`HMAC-SHA256 with its secret, ${endpoint.scheme === 'standard' ? html`Standard Webhooks <code>v1</code>` : html`<code>X-Signature</code>`}`
  }</dd>
  <dt>Signing secrets</dt><dd>${secrets}</dd>
  <dt>Created</dt><dd>${time(endpoint.createdAt)}</dd>
</dl>
<form method="post" action="${base}/event-types">${csrfField(ctx.csrf)}
  ${eventTypePicker('Event types it receives', admin.eventTypes(), formValues(otherRefusal, 'eventTypes', endpoint.eventTypes), otherRefusal?.errors.eventTypes)}
  <button type="submit">Save event types</button>
</form>
${policyForm(ctx, endpoint, `${base}/policy`, policyRefusal)}
<p>${confirmLink(`${base}/delete`, 'Delete endpoint', { what: endpoint.url })}</p>`;
    return ctx.render(`Endpoint ${endpoint.url}`, body, { ...noticeOf(ctx), ...statusOf(refusal) });
  }

  return [
    {
      method: 'GET',
      path: '/webhooks/{id}',
      scope: READ,
      section,
      handle: (ctx) => endpointPage(ctx),
    },
    action('test-event', async (id, ctx) => {
      const eventType = field(ctx, 'eventType');
      const sent = await admin.sendTestEvent(id, eventType ? { eventType } : {});
      return `A test ${sent.eventType} event is on its way; it appears in the log.`;
    }),
    ...confirmed(
      action('disable', async (id) => {
        await admin.updateEndpoint(id, { enabled: false });
        return 'The endpoint is disabled: nothing is sent to it until it is enabled.';
      }),
      async (ctx) => {
        const endpoint = await admin.getEndpoint(ctx.params.id!);
        return {
          title: `Disable ${endpoint.url}?`,
          text: 'Nothing is sent to it until it is enabled again: deliveries due meanwhile are given up (dead), and can be replayed once it is back.',
          label: 'Disable',
          back: `/webhooks/${encodeURIComponent(endpoint.id)}`,
        };
      },
    ),
    policyRoute(admin, endpointPage),
    ...orderingRoutes(admin),
    action('enable', async (id) => {
      await admin.updateEndpoint(id, { enabled: true });
      return 'The endpoint is enabled.';
    }),
    {
      ...action('event-types', async (id, ctx) => {
        await admin.updateEndpoint(id, { eventTypes: fields(ctx, 'eventTypes') });
        return 'Event types saved.';
      }),
      refused: {
        fields: { eventTypes: { field: 'eventTypes', label: 'Event types it receives' } },
        show: endpointPage,
      },
    },
    {
      method: 'POST',
      path: '/webhooks/{id}/replay-failed',
      scope: WRITE,
      section,
      refused: {
        fields: { from: { field: 'since', label: 'Since' }, since: { field: 'since', label: 'Since' } },
        show: endpointPage,
      },
      async handle(ctx) {
        const id = ctx.params.id!;
        const from = utcInput(field(ctx, 'since'));
        if (from === null) throw refuse({ since: `Type a time such as 2026-01-31 14:05 (UTC).` });
        const { requeued } = await admin.resendDeliveries({
          endpointId: id,
          from,
          to: new Date(ctx.now + 1000).toISOString(),
          status: 'failed',
        });
        const at = `/webhooks/${encodeURIComponent(id)}`;
        // Nothing to send is no success: the page says so in a neutral notice of its own.
        if (requeued === 0) return ctx.redirect(`${at}?replayed=0&since=${encodeURIComponent(from)}`);
        return ctx.redirect(
          at,
          `${requeued} failed ${requeued === 1 ? 'delivery is' : 'deliveries are'} sent again.`,
        );
      },
    },
    ...confirmed(
      {
        method: 'POST',
        path: '/webhooks/{id}/rotate-secret',
        scope: WRITE,
        section,
        async handle(ctx) {
          const rotated = await admin.rotateSecret(ctx.params.id!, { overlapSeconds: 86_400 });
          return ctx.redirectShowing(
            `/webhooks/${encodeURIComponent(rotated.endpoint.id)}`,
            { label: 'New signing secret', value: rotated.secret },
            'The secret is rotated: the previous one keeps signing beside it for 24 hours.',
          );
        },
      },
      async (ctx) => {
        const endpoint = await admin.getEndpoint(ctx.params.id!);
        return {
          title: `Rotate the secret of ${endpoint.url}?`,
          text: 'A new secret is made and shown once. The current one keeps signing beside it for 24 hours, so the receiver can switch without missing a delivery.',
          label: 'Rotate the secret',
          back: `/webhooks/${encodeURIComponent(endpoint.id)}`,
          danger: false,
        };
      },
    ),
    ...confirmed(
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
      async (ctx) => {
        const endpoint = await admin.getEndpoint(ctx.params.id!);
        return {
          title: `Delete ${endpoint.url}?`,
          text: 'Its delivery log goes with it, and nothing is sent to it again. This cannot be undone.',
          label: 'Delete endpoint',
          back: `/webhooks/${encodeURIComponent(endpoint.id)}`,
        };
      },
    ),
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

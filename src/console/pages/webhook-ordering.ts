/**
 * An ordered endpoint on its page: whether it keeps each subject's events in order (a form that
 * changes it), and the subjects held behind a failing delivery, each with the delivery that blocks it,
 * since when and how many wait, and a confirmed Skip that gives up on the blocking event (dead, with a
 * reason) so the next of its subject goes.
 */
import { SwitchboardError } from '../../core/errors.js';
import { type Html, html } from '../../internal/html.js';
import type { WebhookAdmin, WebhookEndpoint, WebhookHeldSubject } from '../../webhooks/admin-service.js';
import { WEBHOOK_WRITE_SCOPE as WRITE } from '../../webhooks/scopes.js';
import { confirmed, confirmLink } from '../confirm.js';
import { csrfField, table, time } from '../html.js';
import { type ConsoleRoute, field, type PageContext } from '../route.js';

/** The ordering section of an endpoint's page: its held subjects (when ordered) and the setting. */
export function orderingSection(
  ctx: PageContext,
  endpoint: WebhookEndpoint,
  held: readonly WebhookHeldSubject[],
  base: string,
): Html {
  const ordered = endpoint.ordering === 'subject';
  const rows = held.map((h) => {
    const blocking = h.blocking;
    const skip = `${base}/deliveries/${encodeURIComponent(blocking.id)}/skip`;
    return [
      html`<code>${h.subject}</code>`,
      html`<a href="${base}/deliveries/${encodeURIComponent(blocking.id)}">${blocking.eventType} #${blocking.sequence ?? '—'}</a>`,
      html`${blocking.attempts} failed${blocking.lastError && html` (${blocking.lastError})`}, next ${time(blocking.nextAttemptAt)}`,
      time(h.since),
      h.waiting,
      confirmLink(skip, 'Skip', { what: `${blocking.eventType} of ${h.subject}` }),
    ];
  });
  const choice = (value: 'none' | 'subject', label: string) =>
    html`<div><input type="radio" id="ordering-${value}" name="ordering" value="${value}"${endpoint.ordering === value && html` checked`}> <label for="ordering-${value}">${label}</label></div>`;
  return html`<h2 id="ordering">Ordering</h2>
${
  ordered
    ? table(
        'Held subjects: later events wait behind a failing one',
        ['Subject', 'Blocked by', 'Attempts', 'Held since', 'Waiting', 'Action'],
        rows,
      )
    : html`<p>Events are sent as they come: a retried event may arrive after later ones of the same record.</p>`
}
<form method="post" action="${base}/ordering">${csrfField(ctx.csrf)}
  <fieldset><legend>Order of delivery</legend>
  ${choice('none', 'As they come (fastest)')}
  ${choice('subject', 'In order per subject: a record’s later events wait while an earlier one is retried')}
  </fieldset>
  <button type="submit">Save the ordering</button>
</form>`;
}

/** The POST of the ordering form, and the confirmed skip of a held subject's blocking delivery. */
export function orderingRoutes(admin: WebhookAdmin): ConsoleRoute[] {
  const section = 'webhooks';
  const back = (id: string) => `/webhooks/${encodeURIComponent(id)}`;
  return [
    {
      method: 'POST',
      path: '/webhooks/{id}/ordering',
      scope: WRITE,
      section,
      async handle(ctx) {
        const id = ctx.params.id!;
        const ordering = field(ctx, 'ordering');
        await admin.updateEndpoint(id, { ordering });
        return ctx.redirect(
          back(id),
          ordering === 'subject'
            ? 'Each subject’s events are now sent in order.'
            : 'Events are now sent as they come.',
        );
      },
    },
    ...confirmed(
      {
        method: 'POST',
        path: '/webhooks/{id}/deliveries/{delivery}/skip',
        scope: WRITE,
        section,
        async handle(ctx) {
          const id = ctx.params.id!;
          const skipped = await admin.skipDelivery(await deliveryOf(admin, ctx));
          return ctx.redirect(
            back(id),
            `The ${skipped.eventType} event is skipped (dead); the next event of ${skipped.subject ?? 'its subject'} goes now.`,
          );
        },
      },
      async (ctx) => {
        const delivery = await admin.getDelivery(await deliveryOf(admin, ctx));
        return {
          title: `Skip the ${delivery.eventType} event of ${delivery.subject ?? 'this subject'}?`,
          text: 'It is not sent again: the delivery is given up (dead, marked as skipped) and the later events of its subject are sent at once. It can still be re-sent from its page, after them.',
          label: 'Skip the event',
          back: back(ctx.params.id!),
        };
      },
    ),
  ];
}

/** The delivery of the path, which must be one of the path's endpoint. */
async function deliveryOf(admin: WebhookAdmin, ctx: PageContext): Promise<string> {
  const delivery = await admin.getDelivery(ctx.params.delivery!);
  if (delivery.endpointId !== ctx.params.id)
    throw new SwitchboardError('not_found', `No webhook delivery with id "${delivery.id}".`);
  return delivery.id;
}

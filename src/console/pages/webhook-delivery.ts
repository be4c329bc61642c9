/**
 * A delivery's page: the exact request (the bytes of the body as sent, which an HMAC is computed
 * over, beside a pretty view; the headers of the last attempt), the last answer's headers, when the
 * next attempt is, every attempt, and Retry now, for a delivery in any state.
 */
import { html } from '../../internal/html.js';
import type { WebhookAdmin } from '../../webhooks/admin-service.js';
import { WEBHOOK_READ_SCOPE as READ, WEBHOOK_WRITE_SCOPE as WRITE } from '../../webhooks/scopes.js';
import { button, table, time } from '../html.js';
import { type ConsoleRoute, noticeOf } from '../route.js';
import { deliveryPath, endpointPath } from './webhook-endpoint.js';

const utf8 = new TextEncoder();

export function deliveryRoutes(admin: WebhookAdmin): ConsoleRoute[] {
  const section = 'webhooks';
  return [
    {
      method: 'GET',
      path: '/webhooks/{id}/deliveries/{delivery}',
      scope: READ,
      section,
      async handle(ctx) {
        const delivery = await admin.getDelivery(ctx.params.delivery!);
        const attempts = await admin.listAttempts(delivery.id);
        const last = attempts.at(-1);
        const lines = (headers: Readonly<Record<string, string>> | null | undefined) =>
          headers
            ? Object.entries(headers)
                .map(([k, v]) => `${k}: ${v}`)
                .join('\n')
            : '';
        const sent = lines(last?.requestHeaders);
        const answered = lines(last?.responseHeaders);
        const rows = attempts.map((a) => [
          `#${a.number}`,
          time(a.startedAt),
          a.succeeded
            ? html`<span class="status-succeeded">succeeded</span>`
            : html`<span class="status-failed">failed</span>`,
          a.statusCode ?? '—',
          `${a.durationMs} ms`,
          a.error ?? '',
          a.responseExcerpt ? html`<code>${a.responseExcerpt.slice(0, 300)}</code>` : '',
        ]);
        const endpoint = endpointPath(ctx, delivery.endpointId);
        const here = deliveryPath(ctx, delivery.endpointId, delivery.id);
        const when =
          delivery.status === 'pending'
            ? html`${time(delivery.nextAttemptAt)}${delivery.attempts > 0 && html` (retry ${delivery.attempts + 1} of its schedule)`}`
            : html`none: it ${delivery.status === 'succeeded' ? 'succeeded' : 'was given up'}`;
        const body = html`<p><a href="${endpoint}#log">Back to the endpoint's log</a></p>
<dl>
  <dt>Event</dt><dd><code>${delivery.eventType}</code></dd>
  <dt>Event id</dt><dd><code>${delivery.eventId}</code></dd>
  <dt>Delivery id</dt><dd><code>${delivery.id}</code></dd>
  <dt>Status</dt><dd><span class="status-${delivery.status}">${delivery.status}</span>${delivery.lastStatusCode !== null && html` (last answer ${delivery.lastStatusCode})`}</dd>
  <dt>Created</dt><dd>${time(delivery.createdAt)}</dd>
  <dt>Next attempt</dt><dd>${when}</dd>
</dl>
<p>${button(`${here}/retry`, 'Retry now', ctx.csrf)}</p>
<h2>Request sent</h2>
${sent ? html`<pre aria-label="Headers of the last attempt">${sent}</pre>` : html`<p>No attempt yet.</p>`}
<div class="pair">
<div><h3>Body, exact bytes (${utf8.encode(delivery.payload).byteLength} bytes)</h3>
<p class="hint">What was sent on every attempt, byte for byte: the signature is an HMAC of these bytes.</p>
<pre aria-label="Body">${delivery.payload}</pre></div>
<div><h3>Pretty-printed, for reading</h3>
<pre aria-label="Pretty-printed, for reading">${pretty(delivery.payload)}</pre></div>
</div>
<h2>Answer to the last attempt</h2>
${answered ? html`<pre aria-label="Receiver's response headers">${answered}</pre>` : html`<p>No answer headers${last ? ' (no answer, or recorded before they were kept)' : ''}.</p>`}
${table('Attempts', ['#', 'Started', 'Outcome', 'Status', 'Duration', 'Error', 'Response'], rows)}`;
        return ctx.render(`Delivery ${delivery.id}`, body, noticeOf(ctx));
      },
    },
    {
      method: 'POST',
      path: '/webhooks/{id}/deliveries/{delivery}/retry',
      scope: WRITE,
      section,
      async handle(ctx) {
        const delivery = await admin.retryDelivery(ctx.params.delivery!);
        return ctx.redirect(
          `/webhooks/${encodeURIComponent(delivery.endpointId)}/deliveries/${encodeURIComponent(delivery.id)}`,
          'Retrying now: the attempt appears below within seconds (reload).',
        );
      },
    },
  ];
}

function pretty(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

/**
 * An endpoint's delivery policy on its page: the payload (full or thin), its own retry delays and pace,
 * and the request headers it sends (credentials shown masked; a masked line left as it is keeps its
 * value, a line removed removes the header).
 */
import { type Html, html } from '../../internal/html.js';
import type { WebhookAdmin, WebhookEndpoint } from '../../webhooks/admin-service.js';
import { MASKED_HEADER_VALUE } from '../../webhooks/custom-headers.js';
import { WEBHOOK_WRITE_SCOPE as WRITE } from '../../webhooks/scopes.js';
import { choiceField, type FormRefusal, formValue, formValues, refuse, textField } from '../forms.js';
import { csrfField } from '../html.js';
import type { ConsoleRoute, PageContext } from '../route.js';
import { field } from '../route.js';

/** The service's fields of the form, as the person reads them. */
const FIELDS = {
  payload: { field: 'payload', label: 'Payload' },
  retrySchedule: { field: 'retrySchedule', label: 'Retry delays (ms)' },
  maxPerSecond: { field: 'maxPerSecond', label: 'Deliveries per second at most' },
  headers: { field: 'headers', label: 'Request headers' },
} as const;

/** The policy form of an endpoint's page, what was typed kept when refused. */
export function policyForm(
  ctx: PageContext,
  endpoint: WebhookEndpoint,
  action: string,
  refusal?: FormRefusal,
): Html {
  const headers = Object.entries(endpoint.headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  return html`<h2 id="policy">Delivery policy</h2>
<form method="post" action="${action}">${csrfField(ctx.csrf)}
  ${choiceField(
    {
      name: 'payload',
      legend: 'Payload',
      type: 'radio',
      choices: [
        { value: 'full', label: 'Full: the event with its data' },
        {
          value: 'thin',
          label: 'Thin: only event, event_id, subject and sequence (the receiver reads the record)',
        },
      ],
      ticked: formValues(refusal, 'payload', [endpoint.payload ?? 'full']),
    },
    refusal,
  )}
  ${textField({ name: 'retrySchedule', label: FIELDS.retrySchedule.label, value: formValue(refusal, 'retrySchedule', endpoint.retrySchedule?.join(', ') ?? ''), hint: 'The wait before each retry, e.g. 1000, 60000, 600000 (1 to 9 of them, 100 ms to 24 h each); empty: the default schedule (8 attempts over about 27.5 hours).', size: 60 }, refusal)}
  ${textField({ name: 'maxPerSecond', label: FIELDS.maxPerSecond.label, value: formValue(refusal, 'maxPerSecond', endpoint.maxPerSecond?.toString() ?? ''), hint: '0.1 to 1000; empty: no pace of its own.', size: 10 }, refusal)}
  ${textField({ name: 'headers', label: FIELDS.headers.label, value: formValue(refusal, 'headers', headers), hint: `One "Name: value" a line. Credentials (authorization, cookie, x-api-key…) show as ${MASKED_HEADER_VALUE}: leave such a line as it is to keep the value.`, rows: 4 }, refusal)}
  <button type="submit">Save the delivery policy</button>
</form>`;
}

/** The POST of the policy form; a refusal shows the endpoint's page (`show`) with the form's errors. */
export function policyRoute(
  admin: WebhookAdmin,
  show: (ctx: PageContext, refusal?: FormRefusal) => Promise<Response>,
): ConsoleRoute {
  return {
    method: 'POST',
    path: '/webhooks/{id}/policy',
    scope: WRITE,
    section: 'webhooks',
    refused: { fields: FIELDS, show },
    async handle(ctx) {
      const id = ctx.params.id!;
      const current = await admin.getEndpoint(id);
      await admin.updateEndpoint(id, {
        payload: field(ctx, 'payload') || 'full',
        retrySchedule: delaysOf(field(ctx, 'retrySchedule')),
        maxPerSecond: numberOf(field(ctx, 'maxPerSecond'), 'maxPerSecond', 'Type a number such as 5 or 0.5.'),
        headers: headersChange(current.headers ?? {}, field(ctx, 'headers')),
      });
      return ctx.redirect(`/webhooks/${encodeURIComponent(id)}`, 'The delivery policy is saved.');
    },
  };
}

/** The retry delays typed, or null (the default schedule) when none; the service checks the bounds. */
function delaysOf(text: string): number[] | null {
  if (!text) return null;
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (parts.some((p) => !/^\d+$/.test(p)))
    throw refuse({ retrySchedule: 'Type whole numbers of milliseconds, separated by commas.' });
  return parts.map(Number);
}

function numberOf(text: string, name: string, hint: string): number | null {
  if (!text) return null;
  const value = Number(text);
  if (!Number.isFinite(value)) throw refuse({ [name]: hint });
  return value;
}

/**
 * The change of headers the text makes: each line sets its header (a masked value left as shown keeps
 * the value), and a header no longer listed is removed.
 */
function headersChange(
  current: Readonly<Record<string, string>>,
  text: string,
): Record<string, string | null> {
  const change: Record<string, string | null> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    if (colon <= 0)
      throw refuse({ headers: `Write each header as "Name: value" ("${line.slice(0, 60)}" is not).` });
    change[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  for (const name of Object.keys(current)) if (!(name in change)) change[name] = null;
  return change;
}

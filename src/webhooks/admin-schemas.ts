import { z } from 'zod';
import {
  LOG_RETENTION_DAYS,
  MAX_PER_SECOND_BOUNDS,
  RETRY_SCHEDULE_BOUNDS,
} from '../core/storage/webhooks.js';
import { orderingEnum } from './admin-wire.js';
import {
  CUSTOM_HEADER_BOUNDS,
  headerNameProblem,
  headerValueProblem,
  MASKED_HEADER_VALUE,
} from './custom-headers.js';

/** `order.created`, `order.*` or `*`; a resource's name may have hyphens (`return-note.created`). */
const eventPattern = z
  .string()
  .trim()
  .regex(
    /^(\*|[a-z][a-z0-9_-]*\.(\*|[a-z][a-z0-9_-]*))$/,
    'must be an event type such as "order.created", "order.*" or "*"',
  );

const url = z.string().trim().min(1).max(2000);
const description = z.string().trim().max(500);
const eventTypes = z.array(eventPattern).min(1).max(100);
const scheme = z.enum(['switchboard', 'standard']);
/** `hmac` with the endpoint's secret, or `ed25519` with the deployment's keys (Standard Webhooks `v1a`). */
const signature = z.enum(['hmac', 'ed25519']).meta({
  description:
    "`hmac` (default): HMAC-SHA256 with the endpoint's secret; `ed25519`: Standard Webhooks `v1a` signatures with the deployment's keys, verified with the public keys of `/.well-known/webhook-keys` (the scheme must then be `standard`, its default)",
});
/** Which `/api/v{n}` record shapes deliveries carry; the admin checks it names a version that exists. */
const apiVersion = z
  .number()
  .int()
  .min(1)
  .meta({ description: 'The API version whose record shapes deliveries carry', example: 2 });

/** How long the sweep keeps the endpoint's finished deliveries, in days; null: the storage's retention. */
const logRetentionDays = z
  .number()
  .int()
  .min(LOG_RETENTION_DAYS.min)
  .max(LOG_RETENTION_DAYS.max)
  .meta({
    description: `Days the endpoint's finished deliveries and their attempts stay in the delivery log (${LOG_RETENTION_DAYS.min} to ${LOG_RETENTION_DAYS.max}); without it, the storage's retention (30 days unless configured). Pending deliveries are kept whatever their age.`,
    example: 7,
  });

/** An endpoint's own retry delays in ms, one per retry: `[100, 200]` retries twice, then gives up. */
const retrySchedule = z
  .array(z.number().int().min(RETRY_SCHEDULE_BOUNDS.minDelayMs).max(RETRY_SCHEDULE_BOUNDS.maxDelayMs))
  .min(RETRY_SCHEDULE_BOUNDS.minRetries)
  .max(RETRY_SCHEDULE_BOUNDS.maxRetries)
  .meta({
    description:
      'Delays in ms before each retry, replacing the default schedule: [100, 200] retries 100 ms after the first failure and 200 ms after the second, then gives up (dead). 1 to 9 delays, each 100 ms to 24 hours.',
    example: [60_000, 600_000, 3_600_000],
  });

const maxPerSecond = z.number().min(MAX_PER_SECOND_BOUNDS.min).max(MAX_PER_SECOND_BOUNDS.max).meta({
  description:
    'Deliveries sent to this endpoint per second at most, evenly spaced, across every worker (0.1 to 1000); replaces the dispatcher-wide maxPerSecond',
  example: 5,
});

const payload = z.enum(['full', 'thin']).meta({
  description:
    '`full` (default): the event with its data; `thin`: only `{ event, event_id, subject, sequence }`, the receiver reads the record with its own credential',
});

/**
 * Checks a custom header's name and value (null: the name is removed, in a change) and the bounds of
 * them all; names are compared without case.
 */
function checkHeaders(
  headers: Record<string, string | null>,
  ctx: z.core.$RefinementCtx,
  options: { readonly maskKeeps?: true } = {},
): void {
  const refuse = (path: string[], code: string, message: string): void =>
    ctx.addIssue({ code: 'custom', path, message, params: { code } });
  const names = Object.keys(headers);
  if (names.length > CUSTOM_HEADER_BOUNDS.count)
    refuse([], 'too_many', `headers must have at most ${CUSTOM_HEADER_BOUNDS.count} items.`);
  const seen = new Set<string>();
  let total = 0;
  for (const name of names) {
    const value = headers[name];
    const nameProblem = headerNameProblem(name);
    if (nameProblem)
      refuse([name], 'invalid_header', `The header name "${name.slice(0, 100)}" ${nameProblem}.`);
    if (seen.has(name.toLowerCase())) refuse([name], 'duplicate', `The header "${name}" is given twice.`);
    seen.add(name.toLowerCase());
    if (value === null || value === undefined) continue;
    // In a change, the mask an answer showed stands for the value kept (admin-service.ts).
    if (options.maskKeeps && value === MASKED_HEADER_VALUE) continue;
    const valueProblem = headerValueProblem(value);
    if (valueProblem) refuse([name], 'invalid_header', `The value of the header "${name}" ${valueProblem}.`);
    total += name.length + value.length;
  }
  if (total > CUSTOM_HEADER_BOUNDS.totalChars)
    refuse([], 'too_long', `headers must be at most ${CUSTOM_HEADER_BOUNDS.totalChars} characters in all.`);
}

const headersMeta = {
  description:
    'Request headers sent on every delivery (at most 20, 4096 characters in all). Not hop-by-hop nor the ones the sender sets (content-type, user-agent, webhook-*, x-signature, x-timestamp, x-event-id, traceparent). Values of credential-like names (authorization, cookie, x-api-key, anything with auth, token, secret or key in it) are answered masked as "••••••••"; sending that mask back keeps the value.',
  example: { 'x-tenant': 'acme', authorization: 'Bearer …' },
};
/** Names as lower-case, as HTTP/2 sends them and the log shows them. */
const lowerCaseNames = <T>(headers: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
const headers = z
  .record(z.string(), z.string())
  .superRefine(checkHeaders)
  .transform(lowerCaseNames)
  .meta(headersMeta);
/** In a change: each name given is set, a null value removes it (JSON merge patch, RFC 7396). */
const headersPatch = z
  .record(z.string(), z.string().nullable())
  .superRefine((headers, ctx) => checkHeaders(headers, ctx, { maskKeeps: true }))
  .transform(lowerCaseNames)
  .meta({
    ...headersMeta,
    description: `${headersMeta.description} In a change, each name given is set and a null value removes it; null removes them all.`,
  });

const ordering = orderingEnum().meta({
  description:
    "`subject`: the events of one subject (the record they are about; a message's conversation) arrive strictly in `sequence` order, a later one waiting while an earlier one fails and is retried (other subjects flow); `none` (default): each as soon as it can",
});

export const EndpointCreateInput = z.strictObject({
  url,
  description: description.optional(),
  eventTypes,
  scheme: scheme.optional(),
  signature: signature.optional(),
  enabled: z.boolean().optional(),
  apiVersion: apiVersion.optional(),
  ordering: ordering.optional(),
  retrySchedule: retrySchedule.optional(),
  headers: headers.optional(),
  maxPerSecond: maxPerSecond.optional(),
  payload: payload.optional(),
  logRetentionDays: logRetentionDays.optional(),
});

export const EndpointPatchInput = z
  .strictObject({
    url: url.optional(),
    description: description.optional(),
    eventTypes: eventTypes.optional(),
    scheme: scheme.optional(),
    signature: signature.optional(),
    enabled: z.boolean().optional(),
    apiVersion: apiVersion.optional(),
    ordering: ordering.optional(),
    /** null: back to the dispatcher's schedule, pace or no custom headers. */
    retrySchedule: retrySchedule.nullable().optional(),
    headers: headersPatch.nullable().optional(),
    maxPerSecond: maxPerSecond.nullable().optional(),
    payload: payload.optional(),
    /** null: back to the storage's retention. */
    logRetentionDays: logRetentionDays.nullable().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: 'Send at least one field to change.' });

export const RotateSecretInput = z.strictObject({
  /** How long the previous secret keeps signing alongside the new one (0 to 7 days; default 24 h). */
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .optional(),
});

const instant = z.iso.datetime({ offset: true });

export const ResendRangeInput = z.strictObject({
  endpointId: z.string().min(1).max(100).optional(),
  from: instant,
  /** Exclusive; without it, every delivery created since `from`. */
  to: instant.optional(),
  /**
   * Which deliveries to send again (default `dead`); `failed` is the dead ones and those waiting for a
   * retry after a failed attempt (made due now).
   */
  status: z.enum(['dead', 'succeeded', 'failed']).optional(),
});

export const TestEventInput = z.strictObject({
  /** A kind of the event catalogue (default `webhook.test`); the event carries its example `data`. */
  eventType: z.string().trim().min(1).max(200).optional(),
});

export type EndpointCreateInput = z.output<typeof EndpointCreateInput>;
export type EndpointPatchInput = z.output<typeof EndpointPatchInput>;
export type RotateSecretInput = z.output<typeof RotateSecretInput>;
export type ResendRangeInput = z.output<typeof ResendRangeInput>;
export type TestEventInput = z.output<typeof TestEventInput>;

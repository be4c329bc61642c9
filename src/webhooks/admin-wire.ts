/** The wire shapes of the webhook admin routes, for validation of answers in tests and for OpenAPI. */
import { z } from 'zod';

const timestamp = z.string().meta({ format: 'date-time', description: 'ISO-8601 UTC time' });

/** An endpoint as the admin routes send it: when each secret was made, never the secrets. */
export const WebhookEndpointSchema = z.object({
  id: z.string().meta({ example: 'whe_1' }),
  url: z.string().meta({ format: 'uri', description: 'The receiver URL (https)' }),
  description: z.string(),
  eventTypes: z.array(z.string()).meta({ description: 'Event kinds, with wildcards: `order.*`, `*`' }),
  scheme: z.enum(['switchboard', 'standard']),
  signature: z.enum(['hmac', 'ed25519']).meta({
    description:
      '`hmac`: HMAC-SHA256 with the endpoint’s secret; `ed25519`: Standard Webhooks `v1a` with the deployment’s keys (`/.well-known/webhook-keys`)',
  }),
  apiVersion: z.number().int().meta({
    description:
      'The API version whose record shapes deliveries carry: `data` is the record as `GET /api/v{apiVersion}/…` answers it',
    example: 2,
  }),
  enabled: z.boolean(),
  disabledReason: z.enum(['manual', 'gone', 'failing']).nullable(),
  failingSince: timestamp.nullable(),
  secrets: z.array(z.object({ createdAt: timestamp, expiresAt: timestamp.nullable() })).meta({
    description: 'When each signing secret was made and stops being used; the values are never shown again',
  }),
  ordering: orderingEnum().meta({
    description:
      '`subject`: each subject’s events arrive in `sequence` order, later ones waiting while an earlier one is retried; `none`: as they come',
  }),
  retrySchedule: z
    .array(z.number().int())
    .optional()
    .meta({
      description:
        'Delays in ms before each retry, replacing the default schedule (absent: the default, about 27.5 hours over 8 attempts)',
      example: [60_000, 600_000],
    }),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .meta({
      description:
        'Request headers sent on every delivery; values of credential-like names (authorization, cookie, x-api-key, …) shown masked as "••••••••"',
      example: { 'x-tenant': 'acme', authorization: '••••••••' },
    }),
  maxPerSecond: z.number().optional().meta({
    description: 'Deliveries sent per second at most (absent: the dispatcher-wide pace, if any)',
    example: 5,
  }),
  payload: z.enum(['full', 'thin']).optional().meta({
    description:
      '`thin`: deliveries carry only `{ event, event_id, subject, sequence }`; absent or `full`: the whole event',
  }),
  logRetentionDays: z.number().int().nullable().meta({
    description:
      'Days its finished deliveries stay in the delivery log; null: the storage’s retention (30 days unless configured)',
    example: 7,
  }),
  createdAt: timestamp,
  updatedAt: timestamp,
  version: z.number().int(),
});

/** An endpoint with its new signing secret, as create and secret rotation answer it. */
export const WebhookEndpointWithSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().meta({ description: 'The new signing secret, shown this once', example: 'whsec_…' }),
});

/** A delivery as the admin routes send it (without its lease). */
export const WebhookDeliverySchema = z.object({
  id: z.string(),
  endpointId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  payload: z.string().meta({ description: 'The exact body sent on every attempt' }),
  status: z.enum(['pending', 'succeeded', 'dead']),
  attempts: z.number().int(),
  nextAttemptAt: timestamp.nullable(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  subject: z.string().nullable().meta({
    description: 'The record the event is about (a message’s conversation); null for events without one',
  }),
  sequence: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'The event’s place among its subject’s events (1, 2, …)' }),
  owner: z.string().nullable().meta({
    description: 'The client the event is about (its records’ owner); null for events no client owns',
  }),
  erasedAt: timestamp.nullable().meta({
    description:
      'When the client’s deletion erased it: the payload keeps ids, types and times (`"redacted": true`), its attempts no response text or headers',
  }),
  createdAt: timestamp,
  updatedAt: timestamp,
});

/** One attempt at a delivery, as the admin routes list them. */
export const WebhookAttemptSchema = z.object({
  id: z.string(),
  deliveryId: z.string(),
  endpointId: z.string(),
  number: z.number().int(),
  startedAt: timestamp,
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable(),
  responseExcerpt: z.string().nullable(),
  error: z.string().nullable(),
  succeeded: z.boolean(),
  requestHeaders: z
    .record(z.string(), z.string())
    .nullable()
    .meta({
      description:
        'The headers sent on this attempt (content type, user agent, event id, timestamp, signatures), in the order sent; null when nothing was sent',
      example: {
        'content-type': 'application/json',
        'x-event-id': 'evt_1',
        'x-timestamp': '1767225600',
        'x-signature': 'sha256=5d41…',
        'user-agent': 'switchboard-webhooks/1',
      },
    }),
  responseHeaders: z
    .record(z.string(), z.string())
    .nullable()
    .meta({
      description:
        'The headers the receiver answered with, lower-case, at most 30 and 4 KiB; null when it did not answer',
      example: { 'content-type': 'text/plain', 'retry-after': '30' },
    }),
});

/** An endpoint's health, as `GET /webhook-endpoints/{id}/health` answers it. */
export const WebhookEndpointHealthSchema = z.object({
  since: timestamp.meta({ description: 'Start of the window: 24 hours ago' }),
  delivered: z.number().int().meta({ description: 'Deliveries created since `since` that succeeded' }),
  failed: z.number().int().meta({ description: 'Deliveries created since `since` that are dead' }),
  pending: z.number().int().meta({ description: 'Deliveries waiting to be sent or retried now' }),
  attemptsSucceeded: z.number().int().meta({ description: 'Attempts started since `since` that succeeded' }),
  attemptsFailed: z
    .number()
    .int()
    .meta({ description: 'Attempts started since `since` that failed, retried or not' }),
  successRate: z.number().min(0).max(1).nullable().meta({
    description: '`attemptsSucceeded / (attemptsSucceeded + attemptsFailed)`; null when no attempt was made',
  }),
  lastAttempt: z
    .object({
      deliveryId: z.string(),
      startedAt: timestamp,
      succeeded: z.boolean(),
      statusCode: z.number().int().nullable(),
      error: z.string().nullable(),
    })
    .nullable()
    .meta({ description: 'The latest attempt, whenever it was' }),
  hours: z
    .array(z.object({ start: timestamp, succeeded: z.number().int(), failed: z.number().int() }))
    .meta({ description: 'Attempts of each hour of the window, oldest first (24)' }),
  lastFailures: z
    .array(
      z.object({
        deliveryId: z.string(),
        eventType: z.string(),
        startedAt: timestamp,
        statusCode: z.number().int().nullable(),
        error: z.string().nullable(),
        responseExcerpt: z.string().nullable(),
      }),
    )
    .meta({ description: 'The latest failed attempts, newest first (at most 5)' }),
  disabledReason: z.enum(['manual', 'gone', 'failing']).nullable(),
});

/** The event catalogue: every kind, and an example of each one's `data`. */
export const WebhookEventTypesSchema = z.object({
  items: z.array(z.string()).meta({ description: 'Event kinds endpoints can subscribe to' }),
  examples: z
    .record(z.string(), z.record(z.string(), z.unknown()))
    .meta({ description: 'Event kind → an example of its `data`, shaped like the real records' }),
});

/** One of the deployment's Ed25519 signing keys, as the admin routes list them (never the private half). */
export const WebhookSigningKeySchema = z.object({
  kid: z.string().meta({ description: 'The key id, the `kid` of the JWK set', example: 'whk_1' }),
  algorithm: z.enum(['Ed25519']),
  publicKey: z.string().meta({ description: 'The JWK `x`: the public key, base64url' }),
  active: z
    .boolean()
    .meta({ description: 'True for the key made last; the others sign beside it until they expire' }),
  createdAt: timestamp,
  expiresAt: timestamp
    .nullable()
    .meta({ description: 'When a rotated-out key stops signing and is unpublished' }),
});

/** The signing keys, the active one first. */
export const WebhookSigningKeyListSchema = z.object({ items: z.array(WebhookSigningKeySchema) });

/** The public keys as a JWK set (RFC 7517 §5; Ed25519 keys as RFC 8037 §2 writes them). */
export const WebhookKeySetSchema = z.object({
  keys: z.array(
    z.object({
      kty: z.literal('OKP'),
      crv: z.literal('Ed25519'),
      x: z.string().meta({ description: 'The public key, base64url' }),
      kid: z.string(),
      use: z.literal('sig'),
      alg: z.literal('EdDSA'),
    }),
  ),
});

/** A held subject of an ordered endpoint, as `GET /webhook-endpoints/{id}/held-subjects` lists them. */
export const WebhookHeldSubjectSchema = z.object({
  subject: z.string().meta({ example: 'ord_1' }),
  blocking: WebhookDeliverySchema.meta({
    description:
      'The subject’s first pending delivery, which failed and waits for its retry: the others wait for it',
  }),
  waiting: z.number().int().meta({ description: 'How many later deliveries of the subject wait behind it' }),
  since: timestamp.meta({ description: 'When the oldest of those was made' }),
});

/**
 * The endpoint's ordering choices, typed in writing: inferred, the two names printed in either order
 * from one build to the next (the order TypeScript first met each literal), and the API report flapped.
 */
export function orderingEnum(): z.ZodEnum<{ none: 'none'; subject: 'subject' }> {
  return z.enum(['none', 'subject']);
}

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

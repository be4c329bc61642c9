/** The wire shapes of the webhook admin routes, for validation of answers in tests and for OpenAPI. */
import { z } from 'zod';

const timestamp = z.string().meta({ format: 'date-time', description: 'ISO-8601 UTC time' });

export const WebhookEndpointSchema = z.object({
  id: z.string().meta({ example: 'whe_1' }),
  url: z.string().meta({ format: 'uri', description: 'The receiver URL (https)' }),
  description: z.string(),
  eventTypes: z.array(z.string()).meta({ description: 'Event kinds, with wildcards: `order.*`, `*`' }),
  scheme: z.enum(['switchboard', 'standard']),
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
});

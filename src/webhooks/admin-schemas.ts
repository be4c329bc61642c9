import { z } from 'zod';

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
/** Which `/api/v{n}` record shapes deliveries carry; the admin checks it names a version that exists. */
const apiVersion = z
  .number()
  .int()
  .min(1)
  .meta({ description: 'The API version whose record shapes deliveries carry', example: 2 });

export const EndpointCreateInput = z.strictObject({
  url,
  description: description.optional(),
  eventTypes,
  scheme: scheme.optional(),
  enabled: z.boolean().optional(),
  apiVersion: apiVersion.optional(),
});

export const EndpointPatchInput = z
  .strictObject({
    url: url.optional(),
    description: description.optional(),
    eventTypes: eventTypes.optional(),
    scheme: scheme.optional(),
    enabled: z.boolean().optional(),
    apiVersion: apiVersion.optional(),
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

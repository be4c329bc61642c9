/**
 * The one validation layer every interface shares (GraphQL, REST, webhooks). Schemas are zod: they check
 * and normalise input, and the REST module turns the same schemas into OpenAPI, so docs cannot drift.
 */
import { z } from 'zod';
import { SwitchboardError } from './errors.js';
import { fieldErrorsOf, summaryOf } from './field-errors.js';
import { ORDER_STATUSES } from './records.js';

const text = (max: number) => z.string().trim().min(1).max(max);
const email = z.string().trim().toLowerCase().max(254).check(z.email());
/** Digits with the usual separators and an optional leading `+`; stored as typed. */
const phone = z
  .string()
  .trim()
  .regex(/^\+?[0-9][0-9 ()\-.]{3,30}$/, 'must be a phone number such as +33 6 12 34 56 78');
const city = text(100);

export const clientFields = { name: text(200), email, phone: phone.nullable(), city: city.nullable() };

/** Create: `name` and `email` are required, `phone` and `city` optional. Unknown fields are refused. */
export const ClientCreateInput = z.strictObject({
  name: clientFields.name,
  email: clientFields.email,
  phone: clientFields.phone.optional(),
  city: clientFields.city.optional(),
});

/** Full replacement (PUT): every field must be sent; `phone` and `city` may be `null`. */
export const ClientReplaceInput = z.strictObject(clientFields);

/** Partial update (JSON Merge Patch): only the fields sent change; `null` clears `phone` or `city`. */
export const ClientPatchInput = z
  .strictObject({
    name: clientFields.name.optional(),
    email: clientFields.email.optional(),
    phone: clientFields.phone.optional(),
    city: clientFields.city.optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: 'Send at least one field to change.' })
  // The refinement above, as JSON Schema says it (OpenAPI documents are generated from these schemas).
  .meta({ minProperties: 1 });

export const OrderStatusSchema = z.enum(ORDER_STATUSES as [string, ...string[]]);

/** A new order: `total` as an exact decimal string such as `"129.90"`, `currency` as an ISO 4217 code. */
export const OrderCreateInput = z.strictObject({
  total: z
    .string()
    .trim()
    .regex(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,2})?$/, 'must be a decimal amount such as "129.90"'),
  currency: z
    .string()
    .trim()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as "EUR"'),
});

/** A move of an order to a new status; which moves are allowed is checked by the order service. */
export const OrderStatusChangeInput = z.strictObject({ status: OrderStatusSchema });

/** A new chat message: the chatbot, the visitor and the text (up to 4,000 characters). */
export const MessageCreateInput = z.strictObject({
  chatbotId: text(100),
  visitorId: text(100),
  content: text(4000),
});

export type ClientCreateInput = z.output<typeof ClientCreateInput>;
export type ClientReplaceInput = z.output<typeof ClientReplaceInput>;
export type ClientPatchInput = z.output<typeof ClientPatchInput>;
/** A validated {@link OrderCreateInput}. */
export type OrderCreateInput = z.output<typeof OrderCreateInput>;
/** A validated {@link OrderStatusChangeInput}. */
export type OrderStatusChangeInput = z.output<typeof OrderStatusChangeInput>;
/** A validated {@link MessageCreateInput}. */
export type MessageCreateInput = z.output<typeof MessageCreateInput>;

/**
 * Checks `input` against `schema` and returns the normalised value, or throws a `validation_failed`
 * {@link SwitchboardError} that lists every failing field.
 *
 * @example
 * const input = validate(ClientCreateInput, await request.json());
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = fieldErrorsOf(schema, result.error.issues, input);
  throw new SwitchboardError('validation_failed', summaryOf(details), { details });
}

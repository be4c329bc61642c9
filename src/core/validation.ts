/**
 * The one validation layer every interface shares (GraphQL, REST, webhooks). Schemas are zod: they check
 * and normalise input, and the REST module turns the same schemas into OpenAPI, so docs cannot drift.
 */
import { z } from 'zod';
import { type FieldError, SwitchboardError } from './errors.js';
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

export const OrderStatusChangeInput = z.strictObject({ status: OrderStatusSchema });

export const MessageCreateInput = z.strictObject({
  chatbotId: text(100),
  visitorId: text(100),
  content: text(4000),
});

export type ClientCreateInput = z.output<typeof ClientCreateInput>;
export type ClientReplaceInput = z.output<typeof ClientReplaceInput>;
export type ClientPatchInput = z.output<typeof ClientPatchInput>;
export type OrderCreateInput = z.output<typeof OrderCreateInput>;
export type OrderStatusChangeInput = z.output<typeof OrderStatusChangeInput>;
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
  const details = result.error.issues.flatMap((issue) => toFieldErrors(issue, input));
  const fields = [...new Set(details.map((d) => d.field || 'body'))].join(', ');
  throw new SwitchboardError('validation_failed', `The input is not valid: check ${fields}.`, { details });
}

function toFieldErrors(issue: z.core.$ZodIssue, input: unknown): FieldError[] {
  const field = issue.path.map(String).join('.');
  const name = field || 'The body';
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        field: field ? `${field}.${key}` : key,
        code: 'unknown_field',
        message: `${key} is not a known field.`,
      }));
    case 'invalid_type':
      return valueAt(input, issue.path) === undefined
        ? [{ field, code: 'required', message: `${name} is required.` }]
        : [{ field, code: 'invalid_type', message: `${name} must be ${article(issue.expected)}.` }];
    case 'too_small':
      return [
        issue.origin === 'string' && Number(issue.minimum) <= 1
          ? { field, code: 'required', message: `${name} must not be empty.` }
          : { field, code: 'too_short', message: `${name} must be at least ${issue.minimum} long.` },
      ];
    case 'too_big':
      return [{ field, code: 'too_long', message: `${name} must be at most ${issue.maximum} characters.` }];
    case 'invalid_format':
      return [
        {
          field,
          code: 'invalid_format',
          message:
            issue.format === 'email'
              ? `${name} must be a valid e-mail address.`
              : `${name} ${issue.message}.`,
        },
      ];
    case 'invalid_value':
      return [
        {
          field,
          code: 'invalid_value',
          message: `${name} must be one of: ${issue.values.map(String).join(', ')}.`,
        },
      ];
    default:
      return [{ field, code: 'invalid', message: field ? `${name}: ${issue.message}` : issue.message }];
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function article(type: string): string {
  return type === 'object' ? 'an object' : `a ${type}`;
}

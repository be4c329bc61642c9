/**
 * The one validation layer every interface shares (GraphQL, REST, webhooks). Schemas are zod: they check
 * and normalise input, and the REST module turns the same schemas into OpenAPI, so docs cannot drift.
 * The built-in records' input schemas are those their declarations derive (resources/built-ins/).
 */
import { z } from 'zod';
import { SwitchboardError } from './errors.js';
import { fieldErrorsOf, summaryOf } from './field-errors.js';
import { ORDER_STATUSES } from './records.js';
import { clients } from './resources/built-ins/clients.js';
import { messages } from './resources/built-ins/messages.js';
import { orders } from './resources/built-ins/orders.js';
import { invalidText, isStorableValue, unstorableTextIn } from './storable-text.js';

/** A new client: `name` and `email` required, `phone` and `city` optional. Unknown fields are refused. */
export const ClientCreateInput = clients.createInput as z.ZodType<{
  name: string;
  email: string;
  phone?: string | null;
  city?: string | null;
}>;

/** Full replacement (PUT): every field must be sent; `phone` and `city` may be `null`. */
export const ClientReplaceInput = clients.replaceInput as z.ZodType<{
  name: string;
  email: string;
  phone: string | null;
  city: string | null;
}>;

/** Partial update (JSON Merge Patch): only the fields sent change; `null` clears `phone` or `city`. */
export const ClientPatchInput = clients.patchInput as z.ZodType<Partial<z.output<typeof ClientReplaceInput>>>;

export const OrderStatusSchema = z.enum(ORDER_STATUSES as [string, ...string[]]);

/** A new order of a client named elsewhere (the path): `total` as exact decimal text, `currency` ISO 4217. */
export const OrderCreateInput = (orders.createInput as z.ZodObject).omit({
  clientId: true,
}) as unknown as z.ZodType<{
  total: string;
  currency: string;
}>;

/** A move of an order to a new status; which moves are allowed is checked by the order's life cycle. */
export const OrderStatusChangeInput = z.strictObject({ status: OrderStatusSchema });

/** A new chat message: the chatbot, the visitor, the text (up to 4,000 characters), optionally its conversation. */
export const MessageCreateInput = messages.createInput as z.ZodType<{
  chatbotId: string;
  visitorId: string;
  content: string;
  conversationId?: string;
}>;

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
 * {@link SwitchboardError} that lists every failing field; text holding NUL or an unpaired surrogate
 * fails as `invalid_text`, whatever the schema says.
 *
 * @example
 * const input = validate(ClientCreateInput, await request.json());
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  // Every text of every schema is checked here, once, whoever declared the field: NUL or a lone
  // surrogate would be refused by PostgreSQL (a 500) and kept by memory (storable-text.ts).
  const checked = result.success ? result.data : input;
  // The common case allocates nothing: the paths are found only when something is refused.
  if (result.success && isStorableValue(checked)) return result.data;
  const unstorable = unstorableTextIn(checked).map(invalidText);
  const shape = result.success ? [] : fieldErrorsOf(schema, result.error.issues, input);
  const details = [...shape, ...unstorable];
  throw new SwitchboardError('validation_failed', summaryOf(details), { details });
}

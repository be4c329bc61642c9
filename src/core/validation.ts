/**
 * The one validation layer every interface shares (GraphQL, REST, webhooks). Schemas are zod: they check
 * and normalise input, and the REST module turns the same schemas into OpenAPI, so docs cannot drift.
 * A resource's input schemas are those its declaration derives (`clients.createInput`, …).
 */
import type { z } from 'zod';
import { SwitchboardError } from './errors.js';
import { fieldErrorsOf, summaryOf } from './field-errors.js';
import { invalidText, isStorableValue, unstorableTextIn } from './storable-text.js';

/**
 * Checks `input` against `schema` and returns the normalised value, or throws a `validation_failed`
 * {@link SwitchboardError} that lists every failing field; text holding NUL or an unpaired surrogate
 * fails as `invalid_text`, whatever the schema says.
 *
 * @example
 * const input = validate(clients.createInput, await request.json());
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

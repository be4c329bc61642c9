/**
 * The one mapping from zod issues to {@link FieldError}s, for every interface: the same bad input gets
 * the same code and message on REST, GraphQL and OAuth. Sizes are said in the input's own terms:
 * characters for strings, items for lists, a range for numbers.
 */
import type { z } from 'zod';
import type { FieldError } from './errors.js';

export function fieldErrorsOf(
  schema: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
): FieldError[] {
  return issues.flatMap((issue) => toFieldErrors(schema, issue, input));
}

/** The sentence for the error as a whole: the one field's message, or the list of fields. */
export function summaryOf(details: readonly FieldError[]): string {
  if (details.length === 1) return `The input is not valid: ${details[0]!.message}`;
  return `The input is not valid: check ${[...new Set(details.map((d) => d.field || 'body'))].join(', ')}.`;
}

function toFieldErrors(schema: z.ZodType, issue: z.core.$ZodIssue, input: unknown): FieldError[] {
  const field = issue.path.map(String).join('.');
  const name = field || 'The body';
  const one = (code: string, message: string): FieldError[] => [{ field, code, message }];
  // A rule beyond the shape (a refinement) may name its own code, and then says the whole sentence.
  if (issue.code === 'custom' && typeof issue.params?.code === 'string')
    return one(issue.params.code, issue.message);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        field: field ? `${field}.${key}` : key,
        code: 'unknown_field',
        message: `${key} is not a known field.`,
      }));
    case 'invalid_type':
      return valueAt(input, issue.path) === undefined
        ? one('required', `${name} is required.`)
        : one('invalid_type', `${name} must be ${article(issue.expected)}.`);
    case 'too_small':
    case 'too_big':
      return one(...sizeError(schema, issue, name));
    case 'invalid_format':
      return one(
        'invalid_format',
        issue.format === 'email' ? `${name} must be a valid e-mail address.` : `${name} ${issue.message}.`,
      );
    case 'invalid_value':
      return one('invalid_value', `${name} must be one of: ${issue.values.map(String).join(', ')}.`);
    default:
      return one('invalid', field ? `${name}: ${issue.message}` : issue.message);
  }
}

function sizeError(
  schema: z.ZodType,
  issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig,
  name: string,
): [code: string, message: string] {
  const small = issue.code === 'too_small';
  const bound = small ? issue.minimum : issue.maximum;
  switch (issue.origin) {
    case 'string':
      if (small && Number(bound) <= 1) return ['required', `${name} must not be empty.`];
      return small
        ? ['too_short', `${name} must be at least ${bound} characters.`]
        : ['too_long', `${name} must be at most ${bound} characters.`];
    case 'array':
    case 'set':
      return small
        ? ['too_few', `${name} must have at least ${bound} ${bound === 1 ? 'item' : 'items'}.`]
        : ['too_many', `${name} must have at most ${bound} items.`];
    case 'number':
    case 'int':
    case 'bigint': {
      const range = numberRange(schemaAt(schema, issue.path));
      if (range) return ['out_of_range', `${name} must be between ${range[0]} and ${range[1]}.`];
      if (issue.inclusive === false)
        return ['out_of_range', `${name} must be ${small ? 'greater' : 'less'} than ${bound}.`];
      return ['out_of_range', `${name} must be at ${small ? 'least' : 'most'} ${bound}.`];
    }
    default:
      return ['out_of_range', `${name} must be ${small ? 'at least' : 'at most'} ${String(bound)}.`];
  }
}

/** Both bounds of a number schema when it has them (inclusive), so the message can name the range. */
function numberRange(schema: z.ZodType | undefined): [number, number] | undefined {
  const number = schema as { minValue?: number | null; maxValue?: number | null } | undefined;
  const min = number?.minValue;
  const max = number?.maxValue;
  const finite = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);
  // `int()` alone sets safe-integer bounds: not a range anyone chose.
  if (!finite(min) || !finite(max) || max >= Number.MAX_SAFE_INTEGER) return undefined;
  return [min, max];
}

/** The schema of the value at `path`, through objects, lists and wrappers (default, optional, pipe …). */
function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const key of path) {
    const def = current?._zod.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType };
    if (def?.type === 'object') current = def.shape?.[String(key)];
    else if (def?.type === 'array') current = def.element;
    else return undefined;
    current = current && unwrap(current);
  }
  return current;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 10; depth++) {
    const def = current._zod.def as { innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; type: string };
    const next =
      def.type === 'pipe' ? (def.out?._zod.def.type === 'transform' ? def.in : def.out) : def.innerType;
    if (!next) return current;
    current = next;
  }
  return current;
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

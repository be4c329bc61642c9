/** GraphQL types of a resource's zod schemas, and its doc strings. */
import { z } from 'zod';

export function docString(text: string): string {
  return `"""${text.replace(/"""/g, '')}"""`;
}

/** A field's description (zod `.meta({ description })`) as a GraphQL doc string. */
export function descriptionOf(schema: z.ZodType): string {
  const text = z.globalRegistry.get(schema)?.description;
  return text ? `${docString(text)}\n  ` : '';
}

/**
 * The GraphQL type of a field's zod schema: nullable where the field is optional (or all are, in a
 * patch); `ID` for a reference to another record.
 */
export function graphqlType(schema: z.ZodType, allOptional: boolean, reference: boolean): string {
  let inner = schema;
  let optional = allOptional;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) {
    optional = true;
    inner = inner.unwrap() as z.ZodType;
  }
  let name = reference ? 'ID' : 'String';
  if (inner instanceof z.ZodNumber)
    name = inner.format === 'safeint' || inner.format === 'int32' ? 'Int' : 'Float';
  else if (inner instanceof z.ZodBoolean) name = 'Boolean';
  // An optional field reads as null when not set, and may be left out of an input.
  return optional ? name : `${name}!`;
}

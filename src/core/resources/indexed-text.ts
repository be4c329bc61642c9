/**
 * The fields lists find records by (filters, relations, groupings) and the unique ones are indexed by
 * storage: PostgreSQL keeps each such value in an index row, which holds about 2,700 bytes, so a longer
 * text is refused there (a 500) while memory keeps it. Every such text field of a declaration is held
 * to {@link MAX_INDEXED_TEXT} characters, a lower `max` it declares staying as it is, so both adapters
 * accept the same records and the bound is in the OpenAPI document (docs/resources.md).
 */
import { z } from 'zod';
import type { ResourceInput } from './input.js';

/** The most characters of a text field that is indexed: 3 bytes each at most, well within a row. */
export const MAX_INDEXED_TEXT = 500;

/** The declared fields, each indexed text field bounded to {@link MAX_INDEXED_TEXT} characters. */
export function withIndexedTextBounded(
  input: ResourceInput<Record<string, z.ZodType>>,
): Record<string, z.ZodType> {
  const indexed = new Set([
    ...(input.filters ?? []),
    ...(input.unique ?? []),
    ...Object.keys(input.relations ?? {}),
    ...Object.keys(input.groupedBy ?? {}),
  ]);
  return Object.fromEntries(
    Object.entries(input.fields).map(([name, schema]) => [
      name,
      indexed.has(name) ? bounded(schema) : schema,
    ]),
  );
}

function bounded(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodString)
    return (schema.maxLength ?? Number.POSITIVE_INFINITY) > MAX_INDEXED_TEXT
      ? schema.max(MAX_INDEXED_TEXT)
      : schema;
  if (!(schema instanceof z.ZodOptional || schema instanceof z.ZodNullable)) return schema;
  const inner = schema.unwrap() as z.ZodType;
  const next = bounded(inner);
  if (next === inner) return schema;
  // Re-wrapped as declared, with the wrapper's own description.
  const wrapped = schema instanceof z.ZodOptional ? next.optional() : next.nullable();
  const meta = z.globalRegistry.get(schema);
  return meta ? wrapped.meta(meta) : wrapped;
}

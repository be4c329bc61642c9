/**
 * How every interface reads a list's filters and sort alike, so REST and GraphQL cannot drift. Who
 * may see which records is not decided here but in the service (service.ts, ownership.ts).
 */
import { z } from 'zod';
import type { ResourceQuery } from '../storage/index.js';
import { validate } from '../validation.js';
import type { Resource } from './define.js';

/**
 * The `where` of a list: the filters given (as text, read as the field would be written, so that
 * `quantity=2` finds the number 2 and an e-mail matches lower-cased), the searches and `fixed`
 * conditions.
 */
export function whereOf(
  resource: Resource,
  filters: Readonly<Record<string, unknown>>,
  fixed: ResourceQuery['where'] = {},
): Record<string, ResourceQuery['where'][string]> {
  const where: Record<string, ResourceQuery['where'][string]> = { ...fixed };
  for (const field of resource.filters) {
    const raw = filters[field];
    if (typeof raw === 'string') where[field] = typedValue(resource.fields[field], raw);
  }
  for (const [parameter, field] of Object.entries(resource.search)) {
    const raw = filters[parameter];
    if (typeof raw === 'string' && raw !== '') where[field] = { contains: raw };
  }
  return where;
}

/** The sort keys a list accepts: each sortable field, `-` before it for descending. */
export function sortSchemaOf(resource: Resource, keys: readonly string[] = resource.sortable): z.ZodEnum {
  return z.enum(keys.flatMap((f) => [f, `-${f}`]) as [string, ...string[]]);
}

const sortSchemas = new WeakMap<Resource, z.ZodType>();

/**
 * A sort key (default: the creation time, oldest first) as the storage takes it; an unknown key is a
 * `validation_failed` that lists the keys there are.
 */
export function sortOf(resource: Resource, key: unknown): ResourceQuery['sort'] {
  if (key === undefined || key === null) return { field: resource.createdField, descending: false };
  const text = String(key);
  const field = text.startsWith('-') ? text.slice(1) : text;
  if (typeof key !== 'string' || !resource.sortable.includes(field)) {
    let schema = sortSchemas.get(resource);
    if (!schema) {
      schema = z.object({ sort: sortSchemaOf(resource) });
      sortSchemas.set(resource, schema);
    }
    validate(schema, { sort: key });
  }
  return { field, descending: text.startsWith('-') };
}

function typedValue(schema: z.ZodType | undefined, raw: string): string | number | boolean {
  const written = schema?.safeParse(raw);
  if (written?.success && typeof written.data === 'string') return written.data;
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable)
    inner = inner.unwrap() as z.ZodType;
  if (inner instanceof z.ZodNumber && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  if (inner instanceof z.ZodBoolean && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

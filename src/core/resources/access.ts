/**
 * What every interface of a declared resource applies alike, so REST and GraphQL cannot drift: who
 * sees which records, who may create them, and how a list's filters and sort are read.
 */
import { z } from 'zod';
import { canSeeClient, type Principal } from '../auth.js';
import { SwitchboardError } from '../errors.js';
import type { ResourceQuery } from '../storage/index.js';
import { validate } from '../validation.js';
import type { Resource } from './define.js';

type Record_ = { readonly [field: string]: unknown };

/** Whether the principal may see the record: a signed-in user only their own client's. */
export function canSee(resource: Resource, principal: Principal, record: Record_): boolean {
  return !resource.owner || canSeeClient(principal, String(record[resource.owner]));
}

/** Refuses a signed-in user who creates a record for another client (or, of clients, any). */
export function assertMayCreate(resource: Resource, principal: Principal, input: Record_): void {
  if (!resource.owner || principal.userId === undefined) return;
  if (resource.owner === 'id')
    throw new SwitchboardError('forbidden', `A signed-in user cannot create other ${resource.plural}.`);
  if (input[resource.owner] !== principal.userId)
    throw new SwitchboardError(
      'forbidden',
      `A signed-in user may create ${resource.plural} for their own client only.`,
    );
}

/**
 * The `where` of a list: the filters given (as text, read as the field would be written, so that
 * `quantity=2` finds the number 2 and an e-mail matches lower-cased), the searches, `fixed`
 * conditions, and for a signed-in user their own client.
 */
export function whereOf(
  resource: Resource,
  principal: Principal,
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
  if (resource.owner && principal.userId !== undefined) where[resource.owner] = principal.userId;
  return where;
}

/** The sort keys a list accepts: each sortable field, `-` before it for descending. */
export function sortSchemaOf(resource: Resource): z.ZodEnum {
  return z.enum(resource.sortable.flatMap((f) => [f, `-${f}`]) as [string, ...string[]]);
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

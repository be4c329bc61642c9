/**
 * The current API version's shapes in GraphQL, added beside the declared ones (the schema only grows):
 * a field the latest declared version shows as an object where the declared field is text (an order's
 * `total` as money in v2) gets a field of its own of a new object type (`totalMoney: Money!`), and the
 * old field is deprecated in its favour. Derived from the resource's versions; nothing is named here.
 */
import { z } from 'zod';
import type { Resource } from '../core/resources/define.js';
import { capital } from '../core/resources/names.js';
import { latestApiVersion, wireOf } from '../core/resources/wire.js';
import type { ResourceRecord } from '../core/storage/index.js';
import { descriptionOf, docString, graphqlType } from './field-types.js';

/** A field of the current shape, beside the declared field it replaces. */
export interface CurrentField {
  /** The declared field it replaces, deprecated in its favour (`total`). */
  readonly replaces: string;
  /** `totalMoney`. */
  readonly name: string;
  /** Its field definition: `totalMoney: Money!`. */
  readonly definition: string;
  readonly resolve: (record: ResourceRecord) => unknown;
}

/**
 * The current-shape fields of a resource; the object types they need are added to `types` (type name →
 * definition), shared by every resource so each is defined once.
 */
export function currentFieldsOf(resource: Resource, types: Map<string, string>): CurrentField[] {
  const wire = wireOf(resource, latestApiVersion([resource]));
  if (wire.version === 1) return [];
  const declared = resource.recordSchema.shape as Record<string, z.ZodType>;
  const fields: CurrentField[] = [];
  for (const [key, schema] of Object.entries(wire.recordSchema.shape as Record<string, z.ZodType>)) {
    const { inner, optional } = unwrapped(schema);
    if (
      !(inner instanceof z.ZodObject) ||
      !declared[key] ||
      unwrapped(declared[key]).inner instanceof z.ZodObject
    )
      continue;
    const title = titleOf(inner);
    const typeName = objectType(inner, title ?? `${resource.typeName}${capital(key)}`, types);
    const name = `${key}${title ?? `V${wire.version}`}`;
    fields.push({
      replaces: key,
      name,
      definition: `${docString(`The ${key} as API v${wire.version} shows it.`)}\n  ${name}: ${typeName}${optional ? '' : '!'}`,
      resolve: (record) => wire.present(record)[key],
    });
  }
  return fields;
}

/** An object schema as a GraphQL type, its nested objects as types of their own; answers its name. */
function objectType(schema: z.ZodObject, name: string, types: Map<string, string>): string {
  if (types.has(name)) return name;
  types.set(name, '');
  const lines = Object.entries(schema.shape as Record<string, z.ZodType>).map(([key, field]) => {
    const { inner, optional } = unwrapped(field);
    const type =
      inner instanceof z.ZodObject
        ? `${objectType(inner, titleOf(inner) ?? `${name}${capital(key)}`, types)}${optional ? '' : '!'}`
        : graphqlType(field, false, false);
    return `  ${descriptionOf(field)}${key}: ${type}`;
  });
  const description = z.globalRegistry.get(schema)?.description;
  types.set(
    name,
    `${description ? `${docString(description)}\n` : ''}type ${name} {\n${lines.join('\n')}\n}`,
  );
  return name;
}

function unwrapped(schema: z.ZodType): { inner: z.ZodType; optional: boolean } {
  let inner = schema;
  let optional = false;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
    optional = true;
    inner = inner.unwrap() as z.ZodType;
  }
  return { inner, optional };
}

/** The name a shape goes by (`.meta({ title: 'Money' })`). */
function titleOf(schema: z.ZodType): string | undefined {
  return z.globalRegistry.get(schema)?.title;
}

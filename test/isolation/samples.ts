/**
 * Valid inputs made from a JSON Schema alone — a resource's create input, or a request body of the
 * OpenAPI document — so that a resource declared later gets records and requests without test code.
 * Text is `<field>-<tag>`, so two resources' fields of one name agree (a message's chatbotId and its
 * conversation's) and each tenant's values differ from the other's.
 */
import fc from 'fast-check';

export type JsonSchema = { readonly [key: string]: unknown };

let serial = 0;

/** A value `schema` accepts, for the field `key` of tenant `tag`; `resolve` follows `$ref`s. */
export function sampleOf(
  schema: JsonSchema,
  tag: string,
  resolve: (ref: string) => JsonSchema,
  key = 'value',
): unknown {
  if (typeof schema.$ref === 'string') return sampleOf(resolve(schema.$ref), tag, resolve, key);
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (branches) return sampleOf(branches.find((b) => b.type !== 'null') ?? branches[0]!, tag, resolve, key);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.allOf)) return sampleOf(schema.allOf[0] as JsonSchema, tag, resolve, key);
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((k) => [k, sampleOf(properties[k]!, tag, resolve, k)]));
    }
    case 'array':
      return [];
    case 'boolean':
      return true;
    case 'integer':
    case 'number': {
      const low = Number(schema.minimum ?? 1);
      const high = Number(schema.maximum ?? low + 100);
      return Math.min(Math.max(low, 1), high);
    }
    default:
      return textOf(schema, tag, key);
  }
}

function textOf(schema: JsonSchema, tag: string, key: string): string {
  serial += 1;
  if (schema.format === 'email') return `${key.toLowerCase()}.${tag}.${serial}@example.com`;
  if (schema.format === 'date-time')
    return new Date(Date.UTC(2031, 0, 1, 9) + serial * 3_600_000).toISOString();
  if (typeof schema.pattern === 'string') {
    const [value] = fc.sample(fc.stringMatching(new RegExp(schema.pattern)), { numRuns: 1, seed: serial });
    return value!;
  }
  const min = Number(schema.minLength ?? 1);
  const max = Number(schema.maxLength ?? 200);
  return `${key}-${tag}`.padEnd(min, 'x').slice(0, max);
}

/**
 * A record's JSON text written field by field from its wire shape, as Fastify's fast-json-stringify
 * does from a route's schema: the keys are known in advance, so each one's `"key":` is made once and
 * strings that need no escaping are quoted as they are. Built from closures, not generated code, so
 * it runs where `eval` is refused (Workers). The text is exactly `JSON.stringify`'s for a record of
 * the shape; anything else (an extra key, a value of another type) is left to `JSON.stringify`.
 */
import type { z } from 'zod';

/** Writes one value; `undefined` leaves the key out, as `JSON.stringify` does. */
type Write = (value: unknown) => string | undefined;

/** Characters `JSON.stringify` escapes (or may: lone surrogates): such strings go through it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

const plain: Write = (value) => JSON.stringify(value);

const text: Write = (value) =>
  typeof value === 'string' && !NEEDS_ESCAPE.test(value) ? `"${value}"` : JSON.stringify(value);

const number: Write = (value) =>
  typeof value === 'number' && Number.isFinite(value) ? String(value) : JSON.stringify(value);

/** The writer of a schema's values; kinds it does not know are written by `JSON.stringify`. */
function writerOf(schema: z.ZodType): Write {
  const def = (schema as z.ZodType & { _zod: { def: ZodDef } })._zod.def;
  switch (def.type) {
    case 'string':
    case 'enum':
      return text;
    case 'number':
      return number;
    case 'nullable': {
      const inner = writerOf(def.innerType!);
      return (value) => (value === null ? 'null' : inner(value));
    }
    case 'optional':
      return writerOf(def.innerType!);
    case 'object':
      return objectWriter(def.shape!);
    default:
      return plain;
  }
}

interface ZodDef {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
}

function objectWriter(shape: Readonly<Record<string, z.ZodType>>): Write {
  const keys = Object.keys(shape);
  const names = keys.map((key) => `${JSON.stringify(key)}:`);
  const writers = keys.map((key) => writerOf(shape[key]!));
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return JSON.stringify(value);
    const record = value as Record<string, unknown>;
    let out = '';
    let written = 0;
    for (let i = 0; i < keys.length; i++) {
      const field = record[keys[i]!];
      if (field === undefined) continue;
      const json = writers[i]!(field);
      if (json === undefined) continue;
      out += (written === 0 ? '{' : ',') + names[i] + json;
      written++;
    }
    // A key the shape does not name (or one set to undefined): JSON.stringify writes what it holds.
    if (Object.keys(record).length !== written) return JSON.stringify(value);
    return written === 0 ? '{}' : `${out}}`;
  };
}

/**
 * The JSON text of records of `schema`'s shape, equal to `JSON.stringify(record)` for a record whose
 * keys come in the shape's order (as stored records' do).
 *
 * @example
 * const stringify = recordStringifier(resource.recordSchema);
 * stringify(client) === JSON.stringify(client); // true, in about half the time
 */
export function recordStringifier(schema: z.ZodObject): (record: object) => string {
  const write = objectWriter(schema.shape as Record<string, z.ZodType>);
  return (record) => write(record) ?? JSON.stringify(record);
}

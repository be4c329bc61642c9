import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUILT_IN_RESOURCES, CORE_RESOURCES } from '../../src/core/resources/built-ins/index.js';
import { wireOf } from '../../src/core/resources/wire.js';
import { recordStringifier } from '../../src/core/resources/wire-json.js';

// Any text, escapes, control characters and lone surrogates included.
const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('"', '\\', '\n', '\ud800', '</'),
);

/** Records of a shape, every field of it present or (optional and nullable ones) left out or null. */
function recordsOf(shape: Record<string, z.ZodType>): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, schema] of Object.entries(shape)) fields[key] = valuesOf(schema);
  return fc.record(fields);
}

function valuesOf(schema: z.ZodType): fc.Arbitrary<unknown> {
  const def = (schema as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
  if (def.type === 'nullable') return fc.oneof(fc.constant(null), valuesOf(def.innerType!));
  if (def.type === 'number') return fc.oneof(fc.integer(), fc.double());
  if (schema instanceof z.ZodObject) return recordsOf(schema.shape as Record<string, z.ZodType>);
  return anyText;
}

describe('a record written from its wire shape', () => {
  const resources = [...CORE_RESOURCES, ...BUILT_IN_RESOURCES];
  for (const resource of resources) {
    for (const apiVersion of [1, 2]) {
      const wire = wireOf(resource, apiVersion);
      it(`is JSON.stringify's text for ${resource.name} in v${apiVersion}`, () => {
        const shape = wire.recordSchema.shape as Record<string, z.ZodType>;
        fc.assert(
          fc.property(recordsOf(shape), (record) => {
            expect(wire.stringify(record)).toBe(JSON.stringify(record));
          }),
          { numRuns: 300 },
        );
      });
    }
  }

  it('leaves a record of another shape to JSON.stringify: extra keys, undefined fields, other types', () => {
    const stringify = recordStringifier(
      z.object({ id: z.string(), count: z.number(), note: z.string().nullable().optional() }),
    );
    const odd = [
      { id: 'a', count: 1, extra: { nested: [1, 'two'] } },
      { id: 'a', count: 1, note: undefined },
      { id: 'a' },
      { id: 7, count: '1', note: ['x'] },
      { id: 'a', count: Number.NaN },
      { id: 'a', count: Number.POSITIVE_INFINITY, note: null },
      {},
    ];
    for (const record of odd) expect(stringify(record)).toBe(JSON.stringify(record));
    // Keys in another order are written in the shape's: the same JSON value.
    const shuffled = { note: 'n', count: 2, id: 'a' };
    expect(JSON.parse(stringify(shuffled))).toEqual(shuffled);
  });
});

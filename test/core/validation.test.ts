import { describe, expect, it } from 'vitest';
import {
  ClientCreateInput,
  ClientPatchInput,
  ClientReplaceInput,
  OrderCreateInput,
  SwitchboardError,
  validate,
} from '../../src/index.js';

function failure(run: () => unknown): SwitchboardError {
  try {
    run();
  } catch (error) {
    if (error instanceof SwitchboardError) return error;
    throw error;
  }
  throw new Error('expected a validation failure');
}

describe('validation', () => {
  it('normalises a valid client: trims, lower-cases the e-mail', () => {
    expect(validate(ClientCreateInput, { name: '  Ada ', email: ' ADA@Example.COM ' })).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
    });
  });

  it('lists every failing field with a machine-readable code', () => {
    const error = failure(() =>
      validate(ClientCreateInput, { email: 'not-an-email', phone: 42, nickname: 'x' }),
    );
    expect(error.code).toBe('validation_failed');
    expect(error.status).toBe(422);
    expect(error.details).toEqual(
      expect.arrayContaining([
        { field: 'name', code: 'required', message: 'name is required.' },
        { field: 'email', code: 'invalid_format', message: 'email must be a valid e-mail address.' },
        { field: 'phone', code: 'invalid_type', message: 'phone must be a string.' },
        { field: 'nickname', code: 'unknown_field', message: 'nickname is not a known field.' },
      ]),
    );
    expect(error.message).toContain('name');
  });

  it('refuses empty and over-long text', () => {
    const error = failure(() =>
      validate(ClientCreateInput, { name: '   ', email: `${'a'.repeat(250)}@x.io` }),
    );
    expect(error.details.map((d) => [d.field, d.code])).toEqual([
      ['name', 'required'],
      ['email', 'too_long'],
    ]);
  });

  it('requires every field for a full replacement, null allowed where optional', () => {
    const error = failure(() => validate(ClientReplaceInput, { name: 'Ada', email: 'ada@example.com' }));
    expect(error.details.map((d) => d.field).sort()).toEqual(['city', 'phone']);
    expect(
      validate(ClientReplaceInput, { name: 'Ada', email: 'a@b.io', phone: null, city: null }),
    ).toMatchObject({
      phone: null,
    });
  });

  it('refuses an empty patch and a null name', () => {
    expect(failure(() => validate(ClientPatchInput, {})).details[0]).toMatchObject({ code: 'invalid' });
    expect(failure(() => validate(ClientPatchInput, { name: null })).details[0]).toMatchObject({
      field: 'name',
      code: 'invalid_type',
    });
  });

  it('accepts exact decimal money and ISO currency codes only', () => {
    expect(validate(OrderCreateInput, { total: '129.90', currency: 'EUR' })).toEqual({
      total: '129.90',
      currency: 'EUR',
    });
    const error = failure(() => validate(OrderCreateInput, { total: '12.345', currency: 'euro' }));
    expect(error.details.map((d) => d.field)).toEqual(['total', 'currency']);
  });

  it('reports a body that is not an object', () => {
    const error = failure(() => validate(ClientCreateInput, 'hello'));
    expect(error.details).toEqual([
      { field: '', code: 'invalid_type', message: 'The body must be an object.' },
    ]);
  });
});

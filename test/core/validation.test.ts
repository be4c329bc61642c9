import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { clients, orders, SwitchboardError, validate } from '../../src/index.js';
import { ADMIN_KEY, type Demo, startDemo } from '../oauth/support.js';

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
    expect(validate(clients.createInput, { name: '  Ada ', email: ' ADA@Example.COM ' })).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
    });
  });

  it('lists every failing field with a machine-readable code', () => {
    const error = failure(() =>
      validate(clients.createInput, { email: 'not-an-email', phone: 42, nickname: 'x' }),
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
      validate(clients.createInput, { name: '   ', email: `${'a'.repeat(250)}@x.io` }),
    );
    expect(error.details.map((d) => [d.field, d.code])).toEqual([
      ['name', 'required'],
      ['email', 'too_long'],
    ]);
  });

  it('requires every field for a full replacement, null allowed where optional', () => {
    const error = failure(() => validate(clients.replaceInput, { name: 'Ada', email: 'ada@example.com' }));
    expect(error.details.map((d) => d.field).sort()).toEqual(['city', 'phone']);
    expect(
      validate(clients.replaceInput, { name: 'Ada', email: 'a@b.io', phone: null, city: null }),
    ).toMatchObject({
      phone: null,
    });
  });

  it('refuses an empty patch and a null name', () => {
    expect(failure(() => validate(clients.patchInput, {})).details[0]).toMatchObject({ code: 'invalid' });
    expect(failure(() => validate(clients.patchInput, { name: null })).details[0]).toMatchObject({
      field: 'name',
      code: 'invalid_type',
    });
  });

  it('accepts exact decimal money and ISO currency codes only', () => {
    expect(validate(orders.createInput, { clientId: 'cli_1', total: '129.90', currency: 'EUR' })).toEqual({
      clientId: 'cli_1',
      total: '129.90',
      currency: 'EUR',
    });
    const error = failure(() =>
      validate(orders.createInput, { clientId: 'cli_1', total: '12.345', currency: 'euro' }),
    );
    expect(error.details.map((d) => d.field)).toEqual(['total', 'currency']);
  });

  it('reports a body that is not an object', () => {
    const error = failure(() => validate(clients.createInput, 'hello'));
    expect(error.details).toEqual([
      { field: '', code: 'invalid_type', message: 'The body must be an object.' },
    ]);
  });
});

describe('sizes in the words of the value', () => {
  const schema = z.object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    count: z.number().min(0),
    tags: z.array(z.string()).min(1).max(3),
    name: z.string().min(3).max(5),
  });

  it('numbers name their range, lists count items, text counts characters', () => {
    const error = failure(() => validate(schema, { limit: '1000', count: -1, tags: [], name: 'abcdefg' }));
    expect(error.details).toEqual([
      { field: 'limit', code: 'out_of_range', message: 'limit must be between 1 and 100.' },
      { field: 'count', code: 'out_of_range', message: 'count must be at least 0.' },
      { field: 'tags', code: 'too_few', message: 'tags must have at least 1 item.' },
      { field: 'name', code: 'too_long', message: 'name must be at most 5 characters.' },
    ]);
    expect(error.message).toBe('The input is not valid: check limit, count, tags, name.');
    const many = failure(() =>
      validate(schema, { limit: '0', count: 1, tags: ['a', 'b', 'c', 'd'], name: 'ab' }),
    );
    expect(many.details.map((d) => d.message)).toEqual([
      'limit must be between 1 and 100.',
      'tags must have at most 3 items.',
      'name must be at least 3 characters.',
    ]);
  });

  it('says the one failing field in the message', () => {
    expect(failure(() => validate(schema, { limit: '0', count: 1, tags: ['a'], name: 'abc' })).message).toBe(
      'The input is not valid: limit must be between 1 and 100.',
    );
  });
});

describe('the same bad input, the same answer on every interface', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo({ graphql: {} });
  });
  afterAll(() => demo.close());

  it('a limit out of range: REST ?limit= and GraphQL limit: agree on code and message', async () => {
    const auth = { authorization: `Bearer ${ADMIN_KEY}` };
    for (const limit of [0, 1000]) {
      const rest = await fetch(`${demo.base}/api/v1/clients?limit=${limit}`, { headers: auth });
      const problem = (await rest.json()) as { detail: string; errors: unknown[] };
      const graphql = await fetch(`${demo.base}/graphql`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ clients(limit: ${limit}) { id } }` }),
      });
      const { errors } = (await graphql.json()) as {
        errors: { message: string; extensions: { details: unknown[] } }[];
      };
      expect(problem.errors).toEqual([
        { field: 'limit', code: 'out_of_range', message: 'limit must be between 1 and 100.' },
      ]);
      expect(errors[0]!.extensions.details).toEqual(problem.errors);
      // REST names where the input was: the query string.
      expect(problem.detail).toBe('The query is not valid: limit must be between 1 and 100.');
      expect(errors[0]!.message).toBe('The input is not valid: limit must be between 1 and 100.');
    }
  });
});

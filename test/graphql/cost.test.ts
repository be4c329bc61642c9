/**
 * What GraphQL operations cost against the caller's `graphql` budget, read from the RateLimit fields
 * over real HTTP: a list field multiplies its selection by its `limit` (or the list limit the server
 * would use), an operation over `maxCost` is refused, and a refused document is charged its tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.js';

const BUDGET = 10_000;

describe('the cost of a GraphQL operation', () => {
  let server: TestServer;
  let callers = 0;
  beforeAll(async () => {
    server = await startServer({
      rateLimits: { rules: { graphql: { limit: BUDGET, windowMs: 60_000 } } },
      graphql: { limits: { maxCost: 500 } },
    });
  });
  afterAll(() => server.close());

  const left = (response: { headers: Headers }): number =>
    Number(response.headers.get('ratelimit')?.match(/^"graphql";r=(\d+);/)?.[1]);
  /** What one operation takes from a fresh caller's budget. */
  const costOf = async (query: string, variables?: Record<string, unknown>): Promise<number> => {
    const response = await server.gql(query, variables, `user:cost-${++callers}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return BUDGET - left(response);
  };

  it('multiplies the selection under a list field by its limit', async () => {
    expect(await costOf('{ clients(limit: 1) { id name } }')).toBe(3);
    expect(await costOf('{ clients(limit: 100) { id name } }')).toBe(201);
    // Lists within lists: 1 + 10 × (id + orders + 5 × 2).
    expect(await costOf('{ clients(limit: 10) { id orders(limit: 5) { id status } } }')).toBe(121);
  });

  it('prices a list without a limit at the list limit the server would use', async () => {
    // A root list returns defaultListLimit (20) records…
    expect(await costOf('{ clients { id name } }')).toBe(41);
    // …a nested one all of them: priced at maxListLimit (100), the nearest bound.
    expect(await costOf('{ clients(limit: 2) { orders { id } } }')).toBe(203);
  });

  it('reads a limit given as a variable from the request, and counts fragments once expanded', async () => {
    const byVariable = 'query Page($n: Int) { clients(limit: $n) { id } }';
    expect(await costOf(byVariable, { n: 50 })).toBe(51);
    expect(await costOf(byVariable, { n: 3 })).toBe(4);
    expect(await costOf(byVariable)).toBe(21);
    expect(await costOf('{ clients(limit: 10) { ...F } } fragment F on Client { id name }')).toBe(21);
  });

  it('refuses an operation that costs more than maxCost, naming the limit', async () => {
    const response = await server.gql(
      '{ clients(limit: 100) { id name email orders(limit: 2) { id } } }',
      undefined,
      `user:cost-${++callers}`,
    );
    expect(response.status).toBe(400);
    const { errors, data } = response.body;
    expect(data).toBeUndefined();
    expect(errors[0]).toMatchObject({ extensions: { code: 'query_too_complex', limit: 500 } });
    expect(errors[0].message).toBe(
      'The query costs 601, more than the limit of 500 (a list field costs its selection times its limit).',
    );
  });
});

describe('documents the server refuses', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      rateLimits: { rules: { graphql: { limit: 60, windowMs: 60_000 } } },
      graphql: { limits: { maxDepth: 1 } },
    });
  });
  afterAll(() => server.close());

  const post = (query: string) => server.gql(query, undefined, 'user:refused');

  it('charges a refused document its tokens: parse, validation and limit refusals meet a 429', async () => {
    const refusals: [string, string][] = [
      ['{ clients {', 'graphql_parse_failed'], // 3 tokens
      ['{ nope }', 'graphql_validation_failed'], // 3 tokens
      ['{ clients { orders { id } } }', 'query_too_deep'], // 9 tokens
    ];
    const answers: { status: number; code: string; left: string | undefined }[] = [];
    for (let round = 0; round < 5; round++)
      for (const [query] of refusals) {
        const response = await post(query);
        const body = response.body;
        answers.push({
          status: response.status,
          code: body.errors[0].extensions.code,
          left: response.headers.get('ratelimit')?.match(/r=(\d+)/)?.[1],
        });
      }
    // Fifteen units a round: four rounds fit in sixty, the fifth is refused as a whole.
    expect(answers.slice(0, 3)).toEqual([
      { status: 400, code: 'graphql_parse_failed', left: '57' },
      { status: 400, code: 'graphql_validation_failed', left: '54' },
      { status: 400, code: 'query_too_deep', left: '45' },
    ]);
    expect(answers.slice(9, 12).map((a) => a.left)).toEqual(['12', '9', '0']);
    expect(answers.slice(12).map((a) => [a.status, a.code])).toEqual([
      [429, 'rate_limited'],
      [429, 'rate_limited'],
      [429, 'rate_limited'],
    ]);
    // The budget is one: a valid query waits too.
    expect((await post('{ __typename }')).status).toBe(429);
  });
});

import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSchema } from '../../src/graphql/index.js';
import { DEFAULT_LIMITS, resolveLimits } from '../../src/graphql/limits.js';
import { createPreparer } from '../../src/graphql/prepare.js';
import { DEFAULT_RATE_RULES } from '../../src/http/rate-limit.js';
import { startServer, type TestServer } from './helpers.js';

/** `{ clients { orders { … } } }`-free nesting: the host type below can nest without end. */
const nestingSchema = 'extend type Query { node: Node } type Node { id: ID! child: Node }';

function nested(depth: number, leaf = 'id'): string {
  return `${'child { '.repeat(depth)}${leaf}${' }'.repeat(depth)}`;
}

describe('limits that protect the server', () => {
  let server: TestServer;
  beforeAll(async () => {
    const schema = createSchema({ typeDefs: nestingSchema, resolvers: { Query: { node: () => null } } });
    server = await startServer({
      graphql: { schema, limits: { maxDepth: 5, maxAliases: 5, maxTokens: 500, maxBodyBytes: 5_000 } },
    });
  });
  afterAll(() => server.close());

  const refused = async (query: string, code: string): Promise<string> => {
    const { status, body } = await server.gql(query);
    expect(status, query).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors[0].extensions.code, body.errors[0].message).toBe(code);
    return body.errors[0].message as string;
  };

  it('accepts a query at the depth limit', async () => {
    const { body } = await server.gql(`{ node { ${nested(4)} } }`);
    expect(body).toEqual({ data: { node: null } });
  });

  it('refuses a query deeper than the limit with an error naming the limit', async () => {
    expect(await refused(`{ node { ${nested(5)} } }`, 'query_too_deep')).toContain('depth limit of 5');
  });

  it('counts depth through named fragments and inline fragments', async () => {
    await refused(
      `{ node { ...A } } fragment A on Node { child { child { ...B } } } fragment B on Node { child { child { child { id } } } }`,
      'query_too_deep',
    );
    await refused(
      `{ node { ... on Node { child { ... { child { ... on Node { ${nested(3)} } } } } } } }`,
      'query_too_deep',
    );
  });

  it('counts depth under introspection fields too', async () => {
    // graphql-depth-limit skips every __ field; graphql's own rule only counts repeated list fields.
    const ofTypes = `{ __type(name: "Node") { ${'ofType { '.repeat(16)}name${' }'.repeat(16)} } }`;
    expect(await refused(ofTypes, 'query_too_deep')).toContain('introspection depth limit of 15');
    const viaFragment = `{ __schema { queryType { ...T } } } fragment T on __Type { ${'ofType { '.repeat(15)}name${' }'.repeat(15)} }`;
    await refused(viaFragment, 'query_too_deep');
    const fieldsCycle =
      '{ __schema { types { fields { type { fields { type { fields { type { name } } } } } } } } }';
    const { status } = await server.gql(fieldsCycle);
    expect(status).toBe(400);
  });

  it("lets GraphiQL's introspection query through", async () => {
    const wide = await startServer();
    try {
      const { status, body } = await wide.gql(getIntrospectionQuery());
      expect(status).toBe(200);
      expect(body.data.__schema.queryType.name).toBe('Query');
    } finally {
      await wide.close();
    }
  });

  it("admits the benchmark's and the README's queries within the default maxCost, the introspection query too", async () => {
    const wide = await startServer();
    let callers = 0;
    try {
      /** What a query takes from a fresh caller's budget under the defaults. */
      const cost = async (query: string): Promise<number> => {
        const response = await fetch(wide.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer user:wide-${++callers}` },
          body: JSON.stringify({ query }),
        });
        expect(response.status, query).toBe(200);
        expect((await response.json()).errors, query).toBeUndefined();
        const left = Number(response.headers.get('ratelimit')?.match(/r=(\d+)/)?.[1]);
        return DEFAULT_RATE_RULES.graphql.limit - left;
      };
      expect(DEFAULT_LIMITS.maxCost).toBe(10_000);
      // 1 + 20 × (3 fields + orders + 100 × 2).
      expect(await cost('{ clients(limit: 20) { id name email orders { id status } } }')).toBe(4_081);
      expect(await cost('{ clients(limit: 3) { id name orders { id status } } }')).toBe(610);
      // The largest query of the tests (compiled execution's): 1 + 20 × (4 + 1 + 100 × 4).
      const nested =
        '{ clients(limit: 20) { id name email createdAt orders { id status total createdAt } } }';
      expect(await cost(nested)).toBe(8_101);
      // Introspection fields count one a field, as graphql-armor's cost limit ignores introspection.
      expect(await cost(getIntrospectionQuery())).toBeLessThan(500);
    } finally {
      await wide.close();
    }
  });

  it('refuses fragment cycles without hanging or crashing', async () => {
    const { status, body } = await server.gql(
      '{ node { ...A } } fragment A on Node { child { ...B } } fragment B on Node { child { ...A } }',
    );
    expect(status).toBe(400);
    expect(body.errors[0].message).toContain('Cannot spread fragment');
    const self = await server.gql('{ node { ...A } } fragment A on Node { ...A }');
    expect(self.status).toBe(400);
  });

  it('refuses an undefined fragment with a validation error, not a crash', async () => {
    const { status, body } = await server.gql('{ node { ...Missing } }');
    expect(status).toBe(400);
    expect(body.errors[0].message).toBe('Unknown fragment "Missing".');
    expect(body.errors[0].extensions.code).toBe('graphql_validation_failed');
  });

  it('refuses exponential fragment fan-out before walking it', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `F${i}`);
    const fragments = names
      .map((name, i) =>
        i === names.length - 1
          ? `fragment ${name} on Node { id }`
          : `fragment ${name} on Node { ...F${i + 1} child { ...F${i + 1} } }`,
      )
      .join(' ');
    const unlimited = await startServer({
      graphql: {
        schema: createSchema({ typeDefs: nestingSchema, resolvers: { Query: { node: () => null } } }),
        limits: { maxDepth: 100, maxTokens: 10_000 },
      },
    });
    try {
      const { status, body } = await unlimited.gql(`{ node { ...F0 } } ${fragments}`);
      expect(status).toBe(400);
      expect(body.errors[0].extensions.code).toBe('query_too_complex');
    } finally {
      await unlimited.close();
    }
  });

  it('refuses too many aliases', async () => {
    const aliases = Array.from({ length: 6 }, (_, i) => `a${i}: __typename`).join(' ');
    expect(await refused(`{ ${aliases} }`, 'too_many_aliases')).toContain('limit is 5');
  });

  it('refuses too many tokens while parsing', async () => {
    expect(await refused(`{ ${'x '.repeat(600)}}`, 'too_many_tokens')).toContain('500');
  });

  it('refuses a body over the size limit with 413, whatever Content-Length claims', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer service' },
      body: JSON.stringify({ query: `{ __typename } # ${'x'.repeat(6_000)}` }),
    });
    expect(response.status).toBe(413);
    expect((await response.json()).errors[0].extensions.code).toBe('payload_too_large');
  });
});

describe('document cache', () => {
  it('parses and validates a repeated query once', () => {
    const prepare = createPreparer(createSchema(), { limits: resolveLimits(), introspection: true });
    const first = prepare('{ clients { id } }');
    const second = prepare('{ clients { id } }');
    expect(first.ok).toBe(true);
    expect(second).toBe(first);
    expect(prepare('{ clients { name } }')).not.toBe(first);
  });
});

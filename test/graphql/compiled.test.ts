import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { GraphQLError, GraphQLScalarType, getIntrospectionQuery } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../../src/core/event-bus.js';
import type { LogLevel } from '../../src/core/runtime.js';
import { createGraphQLHandler, createSchema } from '../../src/graphql/index.js';
import { createDomain, createRuntime } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { countingIds, manualClock } from '../support/clock.js';
import { root } from '../support/deno.js';
import { answerAll, type Report } from './fixtures/no-code-generation.js';
import { testAuthenticate } from './helpers.js';

/**
 * graphql-jit runs cached operations; graphql-js runs them with `compile: false`. Every answer, errors,
 * status and headers included, must be the same byte for byte, and stay the same once compiled.
 */

type Handler = (request: Request) => Promise<Response>;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface Logged {
  readonly level: LogLevel;
  readonly message: string;
}

const URL_ = 'http://localhost/graphql';

// A host extension with the failures graphql-js masks or shows: a throwing resolver, a null for a
// non-null field, and a custom scalar whose serialize fails with a bug or refuses a value.
const OddScalar = new GraphQLScalarType({
  name: 'Odd',
  serialize(value) {
    if (value === 'bug') throw new TypeError('internal detail: pool exhausted');
    if (value === 'refuse') throw new GraphQLError('Odd cannot represent "refuse".');
    if (value === 'void') return undefined;
    return value;
  },
});
const schema = createSchema({
  typeDefs: `
    scalar Odd
    extend type Query { broken: String nothing: String! odd(value: String!): Odd echo(text: String!): String! }
  `,
  resolvers: {
    Odd: OddScalar,
    Query: {
      broken: () => {
        throw new Error('database password is hunter2');
      },
      nothing: () => null,
      odd: (_: unknown, args: { value: string }) => args.value,
      echo: (_: unknown, args: { text: string }) => args.text,
    },
  },
});

function post(body: unknown, token: string | null = 'service', accept = 'application/json'): () => Request {
  return () =>
    new Request(URL_, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
}

function get(query: string, accept = 'application/graphql-response+json'): () => Request {
  return () =>
    new Request(`${URL_}?query=${encodeURIComponent(query)}`, {
      headers: { accept, authorization: 'Bearer service' },
    });
}

async function answer(handler: Handler, request: Request): Promise<Answer> {
  const response = await handler(request);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

function handlers(options: { introspection?: boolean } = {}): {
  compiled: Handler;
  interpreted: Handler;
  logs: { compiled: Logged[]; interpreted: Logged[] };
} {
  const logs = { compiled: [] as Logged[], interpreted: [] as Logged[] };
  const make = (compile: boolean, into: Logged[]): Handler =>
    createGraphQLHandler(
      createRuntime({
        storage: createMemoryStorage(),
        logger: { log: (level, message) => into.push({ level, message }) },
      }),
      { domain, bus: createMemoryEventBus(), schema, authenticate: testAuthenticate, compile, ...options },
    );
  return { compiled: make(true, logs.compiled), interpreted: make(false, logs.interpreted), logs };
}

const clock = manualClock();
const domain = createDomain(createRuntime({ storage: createMemoryStorage(), clock, ids: countingIds() }));
const clientIds: string[] = [];

beforeAll(async () => {
  for (let i = 0; i < 5; i++) {
    const client = await domain.clients.create({ name: `Client ${i}`, email: `c${i}@example.com` });
    clientIds.push(client.id);
    for (let j = 0; j < 2; j++) {
      clock.advance(1_000);
      const order = await domain.orders.create({
        clientId: client.id,
        total: `${i + 1}${j}.50`,
        currency: 'EUR',
      });
      if (j === 1) await domain.orders.update(order.id, { status: 'paid' });
    }
  }
});

/** Runs the request on graphql-js, then twice compiled (compiling, then from the cache), and compares. */
async function expectSameAnswers(pair: ReturnType<typeof handlers>, request: () => Request): Promise<Answer> {
  const expected = await answer(pair.interpreted, request());
  expect(await answer(pair.compiled, request())).toEqual(expected);
  expect(await answer(pair.compiled, request())).toEqual(expected);
  return expected;
}

const NESTED = '{ clients(limit: 20) { id name email createdAt orders { id status total createdAt } } }';

describe('compiled GraphQL execution (graphql-jit)', () => {
  const pair = handlers();

  it('answers a repeated query from its compiled form exactly as graphql-js does', async () => {
    const expected = await expectSameAnswers(pair, post({ query: NESTED }));
    const { data } = JSON.parse(expected.body);
    expect(data.clients).toHaveLength(5);
    expect(data.clients[0].orders.map((o: { status: string }) => o.status)).toEqual(['PENDING', 'PAID']);
    for (let i = 0; i < 5; i++)
      expect(await answer(pair.compiled, post({ query: NESTED })())).toEqual(expected);
  });

  it.each([
    [
      'fragments, aliases, enum arguments and @include',
      post({
        query: `query($with: Boolean!) { first: clients(limit: 2) { ...C } rest: clients(offset: 2) { id paid: orders(status: PAID) { id status } } }
          fragment C on Client { id name orders @include(if: $with) { ... on Order { id status currency } } }`,
        variables: { with: true },
      }),
    ],
    [
      'one client by id, its orders filtered',
      () => post({ query: `{ client(id: "${clientIds[1]}") { name orders(status: PENDING) { total } } }` })(),
    ],
    [
      'a user sees only their own client',
      () => post({ query: '{ clients { id } other: client(id: "nope") { id } }' }, `user:${clientIds[2]}`)(),
    ],
    [
      'a field the caller has no scope for',
      post({ query: '{ clients { id orders { id } } }' }, 'scopes:crm.clients.read'),
    ],
    ['a field that needs credentials, sent without any (401)', post({ query: '{ clients { id } }' }, null)],
    ['a resolver error, masked', post({ query: '{ broken echo(text: "still here") }' })],
    ['null for a non-null field', post({ query: '{ echo(text: "x") nothing }' })],
    ['a custom scalar that fails with a bug, masked', post({ query: '{ odd(value: "bug") }' })],
    ['a custom scalar that refuses a value', post({ query: '{ odd(value: "refuse") echo(text: "y") }' })],
    ['a custom scalar that serializes to undefined', post({ query: '{ odd(value: "void") }' })],
    [
      'a variable of the wrong type',
      post({ query: 'query($n: Int) { clients(limit: $n) { id } }', variables: { n: 'ten' } }),
    ],
    [
      'a variable of the wrong type, graphql-response+json (400)',
      post(
        { query: 'query($n: Int) { clients(limit: $n) { id } }', variables: { n: 1.5 } },
        'service',
        'application/graphql-response+json',
      ),
    ],
    ['a required variable left out', post({ query: 'query($t: String!) { echo(text: $t) }', variables: {} })],
    [
      'an input object sent as a list',
      post({
        query: 'mutation($i: UpdateClientInput!) { updateClient(id: "x", input: $i) { id } }',
        variables: { i: [] },
      }),
    ],
    [
      'an input object with an unknown field',
      post({
        query: 'mutation($i: CreateClientInput!) { createClient(input: $i) { id } }',
        variables: { i: { name: 'A', email: 'a@example.com', shoe: 42 } },
      }),
    ],
    [
      'an input the domain refuses',
      post({ query: 'mutation { createClient(input: { name: "", email: "nope" }) { id } }' }),
    ],
    [
      'an operation name the document does not have',
      post({ query: 'query A { echo(text: "a") }', operationName: 'B' }),
    ],
    [
      'several operations and no operation name',
      post({ query: 'query A { echo(text: "a") } query B { echo(text: "b") }' }),
    ],
    [
      'the operation named',
      post({ query: 'query A { echo(text: "a") } query B { echo(text: "b") }', operationName: 'B' }),
    ],
    ['a list limit over the maximum', post({ query: '{ clients(limit: 500) { id } }' })],
    [
      'a query over the depth limit',
      post({
        query:
          '{ a: __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } }',
      }),
    ],
    ['a parse error', post({ query: '{ clients { id ' }, 'service', 'application/graphql-response+json')],
    ['a GET query', get('{ clients(limit: 1) { name } }')],
    ['a mutation over GET (405)', get('mutation { deleteClient(id: "x") }')],
    ['__typename', post({ query: '{ __typename }' }, null)],
    ['the introspection query GraphiQL sends', post({ query: getIntrospectionQuery() }, null)],
  ])('answers the same compiled and on graphql-js: %s', async (_name, request) => {
    await expectSameAnswers(pair, request);
  });

  it('answers a multipart upload the same compiled and on graphql-js', async () => {
    const csv = 'name,email\r\nNobody,not-an-email\r\nTwin,c1@example.com\r\n';
    const request = (): Request => {
      const form = new FormData();
      form.set(
        'operations',
        JSON.stringify({
          query:
            'mutation($file: Upload!) { importClients(file: $file) { created { id } rejected { line code message } } }',
          variables: { file: null },
        }),
      );
      form.set('map', JSON.stringify({ 0: ['variables.file'] }));
      form.set('0', new Blob([csv], { type: 'text/csv' }), 'clients.csv');
      return new Request(URL_, {
        method: 'POST',
        headers: { authorization: 'Bearer service', 'graphql-require-preflight': '1' },
        body: form,
      });
    };
    const expected = await expectSameAnswers(pair, request);
    expect(
      JSON.parse(expected.body).data.importClients.rejected.map((r: { code: string }) => r.code),
    ).toEqual(['validation_failed', 'conflict']);
  });

  it('compiles every operation above: none fell back to graphql-js', () => {
    expect(pair.logs.compiled.filter((l) => l.level !== 'error')).toEqual([]);
    // Masked failures are logged on both paths.
    expect(pair.logs.compiled.filter((l) => l.level === 'error').length).toBeGreaterThan(0);
    expect(pair.logs.interpreted.filter((l) => l.level === 'error').length).toBeGreaterThan(0);
  });

  it('refuses introspection the same compiled and on graphql-js when it is off', async () => {
    const closed = handlers({ introspection: false });
    const refused = await expectSameAnswers(closed, post({ query: '{ __schema { queryType { name } } }' }));
    expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('graphql_validation_failed');
    await expectSameAnswers(closed, post({ query: '{ __typename clients(limit: 1) { id } }' }));
    await expectSameAnswers(closed, post({ query: '{ clients { nme } }' }));
  });

  it('runs on graphql-js, with the same answers, where the runtime refuses code generation', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--disallow-code-generation-from-strings',
        '--import',
        'tsx',
        'test/graphql/fixtures/no-code-generation.ts',
      ],
      { cwd: root, timeout: 60_000 },
    );
    const refused = JSON.parse(stdout.trim().split('\n').at(-1)!) as Report;
    const compiled = await answerAll();
    expect(refused.logs).toContainEqual({
      level: 'info',
      message: 'code generation is refused here: GraphQL runs through graphql-js',
    });
    expect(compiled.logs).toEqual([]);
    expect(refused.answers).toEqual(compiled.answers);
  });
});

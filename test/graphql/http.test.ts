import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogLevel } from '../../src/core/runtime.js';
import { createSchema } from '../../src/graphql/index.js';
import { startServer, type TestServer } from './helpers.js';

describe('GraphQL over HTTP', () => {
  let server: TestServer;
  const logged: { level: LogLevel; message: string; fields?: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    const schema = createSchema({
      typeDefs: 'extend type Query { broken: String  echo(text: String!): String! }',
      resolvers: {
        Query: {
          broken: () => {
            throw new Error('database password is hunter2');
          },
          echo: (_: unknown, args: { text: string }) => args.text,
        },
      },
    });
    server = await startServer({
      authenticate: async () => ({ kind: 'service', subject: 's', scopes: new Set(['crm.clients.read']) }),
      logger: { log: (level, message, fields) => logged.push({ level, message, fields }) },
      graphql: { schema },
    });
  });
  afterAll(() => server.close());

  const post = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('passes every audit of the GraphQL-over-HTTP specification (graphql-http)', async () => {
    const results = await auditServer({ url: server.url });
    const failed = results
      .filter((r) => r.status !== 'ok')
      .map((r) => `${r.id} ${r.name}: ${'reason' in r ? r.reason : ''}`);
    expect(failed).toEqual([]);
    expect(results.length).toBeGreaterThan(50);
  });

  it('answers application/graphql-response+json when asked, application/json for */* or no Accept', async () => {
    expect((await post({ query: '{ __typename }' })).headers.get('content-type')).toBe(
      'application/graphql-response+json; charset=utf-8',
    );
    const wildcard = await post({ query: '{ __typename }' }, { accept: '*/*' });
    expect(wildcard.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const both = await post(
      { query: '{ __typename }' },
      { accept: 'application/json;q=0.9, application/graphql-response+json' },
    );
    expect(both.headers.get('content-type')).toContain('application/graphql-response+json');
  });

  it('answers each request by its own Accept, whatever the request before it asked', async () => {
    const accepts = ['*/*', 'application/graphql-response+json', 'text/csv', '*/*', ''];
    const answers = [];
    for (const accept of accepts) answers.push(await post({ query: '{ __typename }' }, { accept }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 406, 200, 200]);
    expect(answers.map((a) => a.headers.get('content-type')?.split(';')[0])).toEqual([
      'application/json',
      'application/graphql-response+json',
      'application/json',
      'application/json',
      'application/json',
    ]);
  });

  it('refuses an Accept it cannot satisfy with 406', async () => {
    expect((await post({ query: '{ __typename }' }, { accept: 'text/csv' })).status).toBe(406);
  });

  it('uses 400 for malformed JSON, a missing query, parse and validation errors', async () => {
    const cases = [
      '{"query": ',
      { notquery: '{ __typename }' },
      { query: '{ clients { ' },
      { query: '{ nope }' },
      { query: '{ __typename }', variables: 'x' },
    ];
    for (const body of cases) {
      const response = await post(body);
      const json = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(json.data, JSON.stringify(body)).toBeUndefined();
      expect(json.errors.length).toBeGreaterThan(0);
    }
  });

  it('reports variables of the wrong type as a request error (400, no data)', async () => {
    const response = await post({ query: 'query($t: String!) { echo(text: $t) }', variables: { t: 42 } });
    const body = await response.json();
    expect(response.status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors[0].message).toContain('$t');
  });

  it('refuses mutations over GET with 405 and Allow: POST, but runs queries over GET', async () => {
    const mutation = new URL(server.url);
    mutation.searchParams.set('query', 'mutation { deleteClient(id: "x") }');
    const refused = await fetch(mutation, { headers: { accept: 'application/graphql-response+json' } });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('POST');
    const query = new URL(server.url);
    query.searchParams.set('query', '{ echo(text: "hi") }');
    expect(await (await fetch(query)).json()).toEqual({ data: { echo: 'hi' } });
  });

  it('refuses other methods and content types', async () => {
    expect((await fetch(server.url, { method: 'PUT' })).status).toBe(405);
    const form = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query={__typename}',
    });
    expect(form.status).toBe(415);
  });

  it('serves GraphiQL to a browser', async () => {
    const response = await fetch(server.url, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await response.text();
    expect(html).toContain('GraphiQL');
    // Everything the page loads is served here, relative to the page.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const script = html.match(/<script defer src="([^"]+)"/)![1]!;
    const asset = await fetch(new URL(script, server.url), { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-encoding')).toBe('gzip');
    expect(await asset.text()).toContain('GraphiQL');
    // A name that is not one of the page's files is not an asset.
    const unknown = new URL(script.replace(/graphiql-\w+\.js$/, 'graphiql-0.js'), server.url);
    expect((await fetch(unknown, { headers: { accept: 'application/json' } })).status).toBe(400);
  });

  it('masks unexpected errors: a generic message and code for the caller, the details in the log', async () => {
    const { body } = await (async () => ({ body: await (await post({ query: '{ broken }' })).json() }))();
    expect(body.errors[0]).toEqual({
      message: 'Unexpected error.',
      locations: [{ line: 1, column: 3 }],
      path: ['broken'],
      extensions: { code: 'internal' },
    });
    expect(JSON.stringify(body)).not.toContain('hunter2');
    expect(logged.some((l) => l.level === 'error' && String(l.fields?.error).includes('hunter2'))).toBe(true);
  });

  it('lets the host extend the schema with its own fields', async () => {
    const body = await (await post({ query: '{ echo(text: "extended") }' })).json();
    expect(body).toEqual({ data: { echo: 'extended' } });
  });

  it('shows field suggestions while introspection is on', async () => {
    const body = await (await post({ query: '{ client(id: "1") { nam } }' })).json();
    expect(body.errors[0].message).toContain('Did you mean "name"?');
  });
});

describe('GraphQL over HTTP with introspection off', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ graphql: { introspection: false } });
  });
  afterAll(() => server.close());

  it('refuses introspection, hides suggestions and serves no GraphiQL', async () => {
    const introspection = await server.gql('{ __schema { types { name } } }');
    expect(introspection.status).toBe(400);
    expect(introspection.body.errors[0].message).toContain('introspection');
    const typo = await server.gql('{ client(id: "1") { nam } }');
    expect(typo.body.errors[0].message).toBe('Cannot query field "nam" on type "Client".');
    const page = await fetch(server.url, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).not.toContain('text/html');
    const asset = await fetch(`${server.url}/graphiql/graphiql-0.js`, {
      headers: { accept: 'application/json' },
    });
    expect(asset.headers.get('content-type')).not.toContain('javascript');
  });

  it('still answers __typename', async () => {
    expect((await server.gql('{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('GraphQL over HTTP behind the default OAuth guard', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ authenticate: undefined });
  });
  afterAll(() => server.close());

  const post = (query: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...headers,
      },
      body: JSON.stringify({ query }),
    });

  it('passes the GraphQL-over-HTTP audit without credentials (schema-only operations)', async () => {
    const results = await auditServer({ url: server.url });
    expect(results.filter((r) => r.status !== 'ok').map((r) => `${r.id} ${r.name}`)).toEqual([]);
  });

  it('answers 401 with a Bearer challenge when a field needs credentials and none were sent', async () => {
    const response = await post('{ clients { id } }');
    expect(response.status).toBe(401);
    // The same challenge REST sends, naming the scope the field needs.
    // With the OAuth server mounted, the challenge names the resource's metadata (RFC 9728 §5.1) too.
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="switchboard", scope="crm\.clients\.read", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/graphql"$/,
    );
    const body = await response.json();
    expect(body.errors[0].extensions.code).toBe('unauthorized');
    expect(body.errors[0].message).toContain('crm.clients.read');
  });

  it('refuses bad credentials outright, even for schema-only operations', async () => {
    const response = await post('{ __typename }', { authorization: 'Bearer sbat_not-a-real-token' });
    expect(response.status).toBe(401);
    expect((await response.json()).errors[0].extensions.code).toBe('unauthorized');
  });
});

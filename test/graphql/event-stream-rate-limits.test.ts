/**
 * Budgets on GraphQL over Server-Sent Events (graphql-sse), over real HTTP: a subscription takes one
 * `subscribe` of the caller's, the same budget as over WebSocket, a query its cost in `graphql`, the
 * same budget as plain HTTP; past it the request is answered 429 before a stream opens.
 */
import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observedBus, startServer, type TestServer } from './helpers.js';

const rules = {
  graphql: { limit: 20, windowMs: 60_000 },
  subscribe: { limit: 2, windowMs: 60_000 },
};

const onNewMessage = (chatbotId: string): string =>
  `subscription { onNewMessage(chatbotId: "${chatbotId}") { content } }`;

describe('rate limits on GraphQL over SSE', () => {
  let server: TestServer;
  const observed = observedBus();
  beforeAll(async () => {
    server = await startServer({ bus: observed.bus, rateLimits: { rules } });
  });
  afterAll(() => server.close());

  const stream = (query: string, token: string) =>
    fetch(server.url, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ query }),
    });

  it('charges a subscription one of the caller’s subscribe budget, shared with WebSocket; past it 429 and no stream', async () => {
    const token = 'user:sse-subscriber';
    // One over WebSocket…
    const ws = server.ws(token);
    ws.subscribe({ query: onNewMessage('bot-ws') }, { next: () => {}, error: () => {}, complete: () => {} });
    await observed.listeners(1);
    // …one over SSE, whose stream says what is left…
    const first = await stream(onNewMessage('bot-sse-1'), token);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(first.headers.get('ratelimit-policy')).toBe('"subscribe";q=2;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"subscribe";r=0;t=\d+$/);
    await observed.listeners(2);

    // …and the third, by graphql-sse's own client, is refused before a stream opens.
    const refused = await createClient({
      url: server.url,
      retryAttempts: 0,
      headers: { authorization: `Bearer ${token}` },
    })
      .iterate({ query: onNewMessage('bot-sse-2') })
      .next()
      .catch((error: { response?: Response }) => error.response);
    expect(refused).toMatchObject({ status: 429 });
    const response = refused as Response;
    expect(response.headers.get('retry-after')).toBe('30');
    expect(response.headers.get('ratelimit')).toMatch(/^"subscribe";r=0;t=\d+$/);
    expect(await response.json()).toEqual({
      errors: [
        {
          message: 'Too many subscriptions: 2 per 60 s are allowed. Retry in 30 s.',
          extensions: { code: 'rate_limited' },
        },
      ],
    });
    expect(observed.count()).toBe(2);
    // Another caller has a budget of its own.
    const other = await stream(onNewMessage('bot-sse-3'), 'user:sse-other');
    expect(other.status).toBe(200);
    await observed.listeners(3);
    for (const body of [first.body, other.body]) await body?.cancel();
  });

  it('charges a query over SSE its cost in the graphql budget, shared with plain HTTP', async () => {
    const token = 'user:sse-querier';
    // Three units over plain HTTP, three over SSE.
    expect((await server.gql('{ clients(limit: 1) { id name } }', {}, token)).status).toBe(200);
    const query = await stream('{ clients(limit: 1) { id name } }', token);
    expect(query.status).toBe(200);
    expect(query.headers.get('ratelimit')).toMatch(/^"graphql";r=14;t=\d+$/);
    expect(await query.text()).toContain('"clients":[]');
    // A refused document is charged too: `{ nope }` is three tokens.
    const refused = await stream('{ nope }', token);
    expect(refused.headers.get('ratelimit')).toMatch(/^"graphql";r=11;t=\d+$/);
    expect(await refused.text()).toContain('graphql_validation_failed');
  });
});

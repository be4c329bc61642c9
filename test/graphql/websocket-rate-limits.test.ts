/**
 * Budgets on GraphQL over WebSocket, over a real socket on loopback: operations take from the same
 * caller budgets as HTTP (a query its field selections, a subscription one `subscribe`), a refused one
 * gets an `error` message and the socket stays open, and a socket that floods is closed with 1008.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { FLOODING_CLOSE_CODE } from '../../src/graphql/index.js';
import { until } from '../support/until.js';
import { collect, startServer, type TestServer } from './helpers.js';

const rules = {
  graphql: { limit: 20, windowMs: 60_000 },
  subscribe: { limit: 2, windowMs: 60_000 },
  message: { limit: 20, windowMs: 60_000 },
};

const onNewMessage = (chatbotId: string): string =>
  `subscription { onNewMessage(chatbotId: "${chatbotId}") { content } }`;
// Three field selections.
const CLIENTS = '{ clients(limit: 1) { id name } }';

/** A bare graphql-transport-ws peer, acknowledged, to send frames exactly as written. */
async function peer(server: TestServer, token: string): Promise<WebSocket> {
  const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } }));
  await new Promise((resolve) => socket.once('message', resolve));
  return socket;
}

const closeOf = (socket: WebSocket): Promise<{ code: number; reason: string }> =>
  new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));

describe('rate limits on GraphQL over WebSocket', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ rateLimits: { rules } });
  });
  afterAll(() => server.close());
  const subscribers = () => server.switchboard.graphqlWebSocket!.subscriptions().subscribers;

  it('refuses a subscribe over the caller’s subscribe budget with rate_limited and retryAfter; the socket stays usable', async () => {
    const client = server.ws('user:subscriber');
    const before = subscribers();
    for (const bot of ['bot-1', 'bot-2'])
      client.subscribe({ query: onNewMessage(bot) }, { next: () => {}, error: () => {}, complete: () => {} });
    await until(() => subscribers() === before + 2);

    await expect(collect(client, onNewMessage('bot-3'), 1)).rejects.toEqual([
      {
        message: 'Too many subscriptions: 2 per 60 s are allowed. Retry in 30 s.',
        extensions: { code: 'rate_limited', retryAfter: 30 },
      },
    ]);
    expect(subscribers()).toBe(before + 2);
    // Queries have a budget of their own, and the socket still answers them.
    expect(await collect(client, '{ __typename }', 1)).toEqual([{ data: { __typename: 'Query' } }]);
  });

  it('charges a query its field selections from the same budget as HTTP, and refuses it over budget', async () => {
    const token = 'user:querier';
    // Six of twenty over HTTP…
    for (let i = 0; i < 2; i++) expect((await server.gql(CLIENTS, {}, token)).status).toBe(200);
    // …twelve more over the socket, then three do not fit in the two left.
    const client = server.ws(token);
    for (let i = 0; i < 4; i++)
      expect(await collect(client, CLIENTS, 1)).toEqual([{ data: { clients: [] } }]);
    const refused = collect(client, CLIENTS, 1);
    await expect(refused).rejects.toEqual([
      {
        message: expect.stringMatching(/^Too many units of GraphQL query cost: 20 per 60 s are allowed\./),
        extensions: { code: 'rate_limited', retryAfter: expect.any(Number) },
      },
    ]);
    // A cheaper query still fits: the socket was not closed.
    expect(await collect(client, '{ __typename }', 1)).toEqual([{ data: { __typename: 'Query' } }]);
  });

  it('charges a refused document its tokens from the same budget, until the refusal is rate_limited', async () => {
    const client = server.ws('user:refused');
    // `{ nope }` is three tokens: six fit in twenty, the seventh does not.
    const codes: unknown[] = [];
    for (let i = 0; i < 7; i++)
      codes.push(
        await collect(client, '{ nope }', 1).catch(
          (errors: { extensions: { code: string } }[]) => errors[0]!.extensions.code,
        ),
      );
    expect(codes).toEqual([...Array(6).fill('graphql_validation_failed'), 'rate_limited']);
    // A refused subscription document, served beside graphql-ws, is charged alike.
    const refused = await collect(client, 'subscription { nope }', 1).catch((e) => e[0].extensions.code);
    expect(refused).toBe('rate_limited');
  });

  it('closes a socket that sends more messages than its budget with 1008 and the limit as the reason', async () => {
    const socket = await peer(server, 'user:flooder');
    const closed = closeOf(socket);
    // connection_init was one; twenty pings more is one too many.
    for (let i = 0; i < 20; i++) socket.send(JSON.stringify({ type: 'ping' }));
    expect(await closed).toEqual({
      code: FLOODING_CLOSE_CODE,
      reason: 'Too many messages: 20 per 60 s are allowed.',
    });
  });

  it('lets a subscribe completed while its budget is asked go, holding nothing', async () => {
    const socket = await peer(server, 'user:canceller');
    const before = subscribers();
    socket.send(JSON.stringify({ id: 's', type: 'subscribe', payload: { query: onNewMessage('bot-c') } }));
    socket.send(JSON.stringify({ id: 's', type: 'complete' }));
    // The same id may be used again once completed: it is served.
    socket.send(JSON.stringify({ id: 's', type: 'subscribe', payload: { query: onNewMessage('bot-c') } }));
    await until(() => subscribers() === before + 1);
    socket.close();
    await until(() => subscribers() === before);
  });
});

describe('GraphQL over WebSocket with rate limits turned off', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ rateLimits: false });
  });
  afterAll(() => server.close());

  it('limits neither operations nor messages', async () => {
    const socket = await peer(server, 'user:free');
    const frames: { type: string }[] = [];
    socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    for (let i = 0; i < 700; i++) socket.send(JSON.stringify({ type: 'ping' }));
    for (let i = 0; i < 5; i++)
      socket.send(JSON.stringify({ id: `q${i}`, type: 'subscribe', payload: { query: '{ __typename }' } }));
    await until(() => frames.filter((f) => f.type === 'complete').length === 5);
    expect(frames.filter((f) => f.type === 'pong')).toHaveLength(700);
    expect(frames.some((f) => f.type === 'error')).toBe(false);
    expect(socket.readyState).toBe(WebSocket.OPEN);
    socket.close();
  });
});

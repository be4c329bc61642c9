/** Tokens from the authorization server on the other interfaces: GraphQL over HTTP and over WebSocket. */
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createMemoryEventBus } from '../../src/index.js';
import { until } from '../support/until.js';
import { ADMIN_KEY, type Demo, startDemo, tokensFor } from './support.js';

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors: { extensions: { code: string } }[];
}

describe('scopes on GraphQL and WebSocket', () => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemo({ graphql: {} });
  });
  afterAll(() => demo.close());

  const graphql = async (query: string, token?: string) => {
    const response = await fetch(`${demo.base}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query }),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as GraphQLBody,
    };
  };

  /** Subscribes over graphql-ws with the token in `connection_init`; resolves with the first result or error. */
  const subscribe = (token: string) =>
    new Promise<{ error?: unknown; closeCode?: number; data?: unknown }>((resolve) => {
      const client = createClient({
        url: `${demo.base.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${token}` },
        retryAttempts: 0,
        lazy: true,
        on: { closed: (event) => resolve({ closeCode: (event as { code: number }).code }) },
      });
      client.subscribe(
        { query: 'subscription { onNewMessage(chatbotId: "bot-1") { content } }' },
        {
          next: (data) => {
            resolve({ data });
            client.dispose();
          },
          error: (error) => {
            resolve({ error });
            client.dispose();
          },
          complete: () => {},
        },
      );
    });

  it('answers 401 on GraphQL without a token', async () => {
    const { status, headers } = await graphql('{ clients { id } }');
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('refuses a GraphQL field the token has no scope for', async () => {
    const tokens = await tokensFor(demo, demo.ada, { scope: 'chat.messages.read' });
    const { body } = await graphql('{ clients { id } }', tokens.access_token);
    expect(body.data?.clients ?? null).toBeNull();
    expect(body.errors[0]?.extensions.code).toBe('forbidden');
  });

  it("does not let user A's token read user B on GraphQL", async () => {
    const tokens = await tokensFor(demo, demo.ada, { scope: 'crm.clients.read' });
    const own = await graphql(`{ client(id: "${demo.ada.id}") { id } }`, tokens.access_token);
    expect(own.body.data?.client).toEqual({ id: demo.ada.id });
    const other = await graphql(`{ client(id: "${demo.grace.id}") { id } }`, tokens.access_token);
    expect(other.body.data?.client ?? null).toBeNull();
  });

  it('refuses a WebSocket subscription the token has no scope for', async () => {
    const tokens = await tokensFor(demo, demo.ada, { scope: 'crm.clients.read' });
    const result = await subscribe(tokens.access_token);
    // graphql-ws delivers an execution result with `errors` (the subscription resolver refused).
    const errors = (result.data as { errors?: { extensions: { code: string } }[] } | undefined)?.errors ?? [];
    expect(errors[0]?.extensions.code ?? JSON.stringify(result.error)).toBe('forbidden');
  });

  it('closes the WebSocket with 4403 for a bad token in connection_init', async () => {
    const result = await subscribe('sbat_not_a_real_token');
    expect(result.closeCode).toBe(4403);
  });

  it('delivers a subscription to a token with the scope', async () => {
    const tokens = await tokensFor(demo, demo.ada, { scope: 'chat.messages.read' });
    // A user receives the messages of their own conversations only.
    await demo.switchboard.domain.resources.conversation!.create({
      chatbotId: 'bot-1',
      visitorId: 'v1',
      channel: 'web',
      clientId: demo.ada.id,
    });
    demo.switchboard.start();
    const pending = subscribe(tokens.access_token);
    // The subscription needs a moment to register; keep sending until one message arrives.
    let result: Awaited<typeof pending> | undefined;
    pending.then((r) => {
      result = r;
    });
    for (let i = 0; i < 50 && !result; i++) {
      await demo.switchboard.domain.messages.create({
        chatbotId: 'bot-1',
        visitorId: 'v1',
        content: `hi ${i}`,
      });
      await new Promise((r) => setTimeout(r, 20));
    }
    await demo.switchboard.close();
    expect(JSON.stringify((await pending).data)).toContain('hi');
  });
});

describe('credentials that stop being valid while a WebSocket is open', () => {
  let demo: Demo;
  beforeAll(async () => {
    // With the host's bus, so the guard keeps credentials: the checks must still see revocations and expiry.
    demo = await startDemo({ graphql: { credentialCheckMs: 50 }, bus: createMemoryEventBus() });
  });
  afterAll(() => demo.close());

  /** A bare graphql-transport-ws peer subscribed to new messages; resolves once it is subscribed. */
  async function subscribed(token: string): Promise<{ closed: Promise<number>; socket: WebSocket }> {
    const before = demo.switchboard.graphqlWebSocket!.subscriptions().subscribers;
    const socket = new WebSocket(`${demo.base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } }));
    await new Promise((resolve) => socket.once('message', resolve));
    const query = 'subscription { onNewMessage(chatbotId: "bot-1") { content } }';
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query } }));
    await until(() => demo.switchboard.graphqlWebSocket!.subscriptions().subscribers > before);
    return { closed, socket };
  }

  it('closes the socket with 4403 once its access token has expired', async () => {
    const tokens = await tokensFor(demo, demo.ada, { scope: 'chat.messages.read' });
    const { closed } = await subscribed(tokens.access_token);
    demo.clock.advance(3_600_000);
    expect(await closed).toBe(4403);
  });

  it('closes the socket with 4403 once its token is revoked, and keeps the others', async () => {
    const tokens = await tokensFor(demo, demo.ada, { scope: 'chat.messages.read' });
    const revoked = await subscribed(tokens.access_token);
    const kept = await subscribed(ADMIN_KEY);
    const response = await fetch(`${demo.base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens.refresh_token,
        client_id: demo.confidential.id,
        client_secret: demo.confidential.secret,
      }),
    });
    expect(response.status).toBe(200);
    expect(await revoked.closed).toBe(4403);
    await new Promise((resolve) => setTimeout(resolve, 200)); // several more rounds
    expect(kept.socket.readyState).toBe(WebSocket.OPEN);
    kept.socket.close();
    await until(() => demo.switchboard.graphqlWebSocket!.subscriptions().subscribers === 0);
  });

  it('closes the socket with 4403 once its API key is revoked', async () => {
    const created = await fetch(`${demo.base}/oauth/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'widget', scopes: ['chat.messages.read'] }),
    });
    const { id, key } = (await created.json()) as { id: string; key: string };
    const { closed } = await subscribed(key);
    const revoke = await fetch(`${demo.base}/oauth/api-keys/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(revoke.status).toBe(204);
    expect(await closed).toBe(4403);
  });
});

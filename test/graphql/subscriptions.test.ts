import { CloseCode } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createDomain } from '../../src/core/domain/index.js';
import { createMemoryEventBus } from '../../src/core/event-bus.js';
import { createRuntime } from '../../src/core/runtime.js';
import { createGraphQLWebSocketServer, SLOW_SUBSCRIBER_CLOSE_CODE } from '../../src/graphql/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { until } from '../support/until.js';
import { collect, observedBus, startServer, type TestServer, testAuthenticate } from './helpers.js';

const onNewMessage = (chatbotId: string): string =>
  `subscription { onNewMessage(chatbotId: "${chatbotId}") { content visitor_id timestamp } }`;

interface NewMessage {
  data: { onNewMessage: { content: string; visitor_id: string; timestamp: string } };
}

describe('GraphQL subscriptions over WebSocket (graphql-ws)', () => {
  let server: TestServer;
  const observed = observedBus();
  beforeAll(async () => {
    server = await startServer({ bus: observed.bus, rest: {}, graphql: { limits: { maxDepth: 1 } } });
  });
  afterAll(() => server.close());

  const subscriptions = () => server.switchboard.graphqlWebSocket!.subscriptions();
  const send = (chatbotId: string, content: string): Promise<unknown> =>
    server.gql('mutation($input: SendMessageInput!) { sendMessage(input: $input) { id } }', {
      input: { chatbotId, visitorId: 'visitor-1', content },
    });

  it("pushes new messages of the chatbot to every subscriber, and never another chatbot's", async () => {
    const first = collect<NewMessage>(server.ws(), onNewMessage('bot-a'), 2);
    const second = collect<NewMessage>(server.ws(), onNewMessage('bot-a'), 2);
    // Both subscribe to the same operation with the same visibility: they share one execution.
    await until(() => subscriptions().subscribers === 2);
    expect(subscriptions().groups).toBe(1);
    await observed.listeners(1);
    await send('bot-b', 'not for you');
    await send('bot-a', 'hello from a mutation');
    // The REST interface writes through the same domain, so its messages reach subscribers too.
    const rest = await fetch(server.url.replace('/graphql', '/api/v1/chatbots/bot-a/messages'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer service' },
      body: JSON.stringify({ visitorId: 'visitor-2', content: 'hello from REST' }),
    });
    expect(rest.status).toBe(201);
    for (const results of await Promise.all([first, second])) {
      expect(results.map((r) => r.data.onNewMessage.content)).toEqual([
        'hello from a mutation',
        'hello from REST',
      ]);
      expect(results[1]!.data.onNewMessage.visitor_id).toBe('visitor-2');
      expect(results[0]!.data.onNewMessage.timestamp).toMatch(/Z$/);
    }
  });

  it('lets go of the bus when subscribers complete or disconnect', async () => {
    await observed.none();
    const completing = server.ws();
    const done = collect<NewMessage>(completing, onNewMessage('bot-c'), 1);
    const leaving = server.ws();
    leaving.subscribe(
      { query: onNewMessage('bot-c') },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
    await until(() => subscriptions().subscribers === 2);
    await observed.listeners(1); // one shared execution
    await send('bot-c', 'one');
    await done; // completes its subscription
    await observed.listeners(1); // the other still listens
    await leaving.dispose(); // closes its socket
    await observed.none();
  });

  it('runs queries and mutations over the socket too', async () => {
    const [result] = await collect<{ data: unknown }>(server.ws(), '{ __typename }', 1);
    expect(result).toEqual({ data: { __typename: 'Query' } });
  });

  it('applies the HTTP limits and validation to WebSocket operations', async () => {
    const client = server.ws();
    const deep = collect(client, '{ clients { orders { id } } }', 1);
    await expect(deep).rejects.toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'query_too_deep' }) }),
    ]);
    const invalid = collect(client, 'subscription { onNewMessage { content } }', 1);
    await expect(invalid).rejects.toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'graphql_validation_failed' }) }),
    ]);
  });

  it('refuses more operations at once on one connection than the limit', async () => {
    const client = server.ws();
    const listening = observed.listeners(20);
    for (let i = 0; i < 20; i++)
      client.subscribe(
        { query: onNewMessage(`bot-many-${i}`) },
        { next: () => {}, error: () => {}, complete: () => {} },
      );
    await listening;
    await expect(collect(client, onNewMessage('bot-many-20'), 1)).rejects.toEqual([
      expect.objectContaining({ extensions: { code: 'too_many_operations', limit: 20 } }),
    ]);
    await client.dispose();
    await observed.none();
  });

  it('checks the scope of the subscription with the principal from connection_init', async () => {
    const client = server.ws('scopes:crm.clients.read');
    const [result] = await collect<{ errors: { extensions: { code: string } }[] }>(
      client,
      onNewMessage('bot-a'),
      1,
    );
    expect(result!.errors[0]!.extensions.code).toBe('forbidden');
  });

  it('closes a socket whose connection_init carries no valid credentials with 4403 Forbidden', async () => {
    for (const payload of [{}, { Authorization: 'Bearer wrong' }]) {
      const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(JSON.stringify({ type: 'connection_init', payload }));
      const [code] = await new Promise<[number]>((resolve) => socket.once('close', (c) => resolve([c])));
      expect(code).toBe(CloseCode.Forbidden);
    }
  });

  it('refuses subscribing before connection_init with 4401', async () => {
    const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{ __typename }' } }));
    const code = await new Promise<number>((resolve) => socket.once('close', resolve));
    expect(code).toBe(CloseCode.Unauthorized);
  });

  it('accepts credentials from the upgrade request headers as well', async () => {
    const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws', {
      headers: { authorization: 'Bearer service' },
    });
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init' }));
    const message = await new Promise<string>((resolve) =>
      socket.once('message', (data) => resolve(String(data))),
    );
    expect(JSON.parse(message)).toEqual({ type: 'connection_ack' });
    socket.close();
  });

  it('refuses an oversized WebSocket message with 1009', async () => {
    const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send('x'.repeat(200_000));
    const code = await new Promise<number>((resolve) => socket.once('close', resolve));
    expect(code).toBe(1009);
  });
});

describe('shared executions', () => {
  let server: TestServer;
  const bus = createMemoryEventBus();
  beforeAll(async () => {
    server = await startServer({ rest: {}, bus }, { maxBufferedBytes: 64 * 1024 });
  });
  afterAll(() => server.close());
  const subscriptions = () => server.switchboard.graphqlWebSocket!.subscriptions();
  const message = (chatbotId: string, content: string) =>
    server.switchboard.domain.messages.create({ chatbotId, visitorId: 'v', content });

  /** A bare graphql-transport-ws peer, to see the frames exactly as they travel. */
  async function peer(token: string, subscribe: Record<string, string>): Promise<WebSocket> {
    const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } }));
    await new Promise((resolve) => socket.once('message', resolve));
    for (const [id, query] of Object.entries(subscribe))
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
    return socket;
  }

  it("sends one execution's result to each subscriber in graphql-ws frames with its own id", async () => {
    const before = subscriptions();
    const frames: unknown[] = [];
    const a = await peer('service', { 'sub-a': onNewMessage('bot-frames') });
    const b = await peer('service', { 'sub-b': onNewMessage('bot-frames') });
    for (const socket of [a, b]) socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    await until(() => subscriptions().subscribers === before.subscribers + 2);
    expect(subscriptions().groups).toBe(before.groups + 1);
    const sent = await message('bot-frames', 'same for both');
    await until(() => frames.length === 2);
    const payload = {
      data: { onNewMessage: { content: 'same for both', visitor_id: 'v', timestamp: sent.timestamp } },
    };
    expect(frames).toEqual(
      expect.arrayContaining([
        { id: 'sub-a', type: 'next', payload },
        { id: 'sub-b', type: 'next', payload },
      ]),
    );
    a.close();
    b.close();
    await until(() => subscriptions().subscribers === before.subscribers);
    expect(subscriptions().groups).toBe(before.groups);
  });

  it('sends every event to each of several subscriptions on one socket, in order', async () => {
    const before = subscriptions();
    const frames: { id: string; payload: { data: { onNewMessage: { content: string } } } }[] = [];
    // Two of the same operation (one group) and one of another, all on one socket.
    const socket = await peer('service', {
      one: onNewMessage('bot-many'),
      two: onNewMessage('bot-many'),
      other: onNewMessage('bot-many-2'),
    });
    socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    await until(() => subscriptions().subscribers === before.subscribers + 3);
    await message('bot-many', 'first');
    await message('bot-many-2', 'elsewhere');
    await message('bot-many', 'second');
    await until(() => frames.length === 5);
    const contents = (id: string) =>
      frames.filter((f) => f.id === id).map((f) => f.payload.data.onNewMessage.content);
    expect(contents('one')).toEqual(['first', 'second']);
    expect(contents('two')).toEqual(['first', 'second']);
    expect(contents('other')).toEqual(['elsewhere']);
    socket.close();
    await until(() => subscriptions().subscribers === before.subscribers);
  });

  it('closes with 4409 when a subscription id is already in use on the socket', async () => {
    const before = subscriptions();
    const socket = await peer('service', { same: onNewMessage('bot-dup') });
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    socket.send(
      JSON.stringify({ id: 'same', type: 'subscribe', payload: { query: onNewMessage('bot-dup') } }),
    );
    expect(await closed).toBe(CloseCode.SubscriberAlreadyExists);
    await until(() => subscriptions().subscribers === before.subscribers, 'the subscriber to leave');
  });

  it('never shares a result between principals that see differently', async () => {
    const before = subscriptions();
    const results: Record<string, unknown[]> = { service: [], limited: [] };
    const service = await peer('service', { '1': onNewMessage('bot-vis') });
    const limited = await peer('scopes:chat.messages.read', { '1': onNewMessage('bot-vis') });
    service.on('message', (data) => results.service!.push(JSON.parse(String(data))));
    limited.on('message', (data) => results.limited!.push(JSON.parse(String(data))));
    await until(() => subscriptions().subscribers === before.subscribers + 2);
    expect(subscriptions().groups).toBe(before.groups + 2);
    await message('bot-vis', 'hello');
    await until(() => results.service!.length === 1 && results.limited!.length === 1);
    service.close();
    limited.close();
    await until(() => subscriptions().subscribers === before.subscribers, 'both to leave');
  });

  it('closes a socket that stops reading with 1013 once its unsent bytes pass the limit', async () => {
    const before = subscriptions();
    const socket = await peer('service', { '1': onNewMessage('bot-stalled') });
    await until(() => subscriptions().subscribers === before.subscribers + 1, 'the subscriber to join');
    // The peer stops reading: the kernel buffers fill, then the socket's own queue grows.
    (socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const content = 'x'.repeat(4000);
    let received = 0;
    socket.on('message', () => received++);
    const total = 8000;
    // Straight onto the bus: the relay would pace 8,000 events over many seconds.
    for (let i = 0; i < total; i++) {
      const data = {
        id: `msg_${i}`,
        chatbotId: 'bot-stalled',
        visitorId: 'v',
        content,
        timestamp: '2026-01-01T00:00:00Z',
      };
      await bus.publish({ id: `evt_${i}`, type: 'message.created', occurredAt: data.timestamp, data });
    }
    (socket as unknown as { _socket: { resume(): void } })._socket.resume();
    const code = await new Promise<number>((resolve) => socket.once('close', resolve));
    expect(code).toBe(SLOW_SUBSCRIBER_CLOSE_CODE);
    expect(received).toBeLessThan(total);
    await until(() => subscriptions().subscribers === before.subscribers, 'the subscriber to leave');
  }, 60_000);
});

describe('a subscriber that does not read', () => {
  it('is dropped with close code 1013 once its queue is full, instead of being buffered without limit', async () => {
    const storage = createMemoryStorage();
    const bus = createMemoryEventBus();
    const observed = observedBus();
    const runtime = createRuntime({ storage });
    const domain = createDomain(runtime);
    const server = createGraphQLWebSocketServer(runtime, {
      domain,
      bus: {
        ...observed.bus,
        publish: (e) => bus.publish(e),
        subscribe: (l, o) => observed.bus.subscribe(l, o),
      },
      authenticate: testAuthenticate,
      limits: { maxSubscriberQueue: 3 },
    });
    // The real graphql-ws server core; only the transport is a stand-in, for a peer that stops reading.
    let onMessage: (data: string) => Promise<void> = async () => {};
    const sent: string[] = [];
    const closed = new Promise<number>((resolve) => {
      const socket = {
        protocol: 'graphql-transport-ws',
        // Acknowledges the connection, then never finishes sending: a peer that stopped reading.
        send: (data: string) => {
          sent.push(data);
          return sent.length === 1 ? undefined : new Promise<void>(() => {});
        },
        close: (code?: number) => resolve(code ?? 0),
        onMessage: (cb: (data: string) => Promise<void>) => {
          onMessage = cb;
        },
      };
      server.opened(socket, { close: (code) => resolve(code) });
    });
    await onMessage(
      JSON.stringify({ type: 'connection_init', payload: { Authorization: 'Bearer service' } }),
    );
    void onMessage(
      JSON.stringify({ id: '1', type: 'subscribe', payload: { query: onNewMessage('bot-slow') } }),
    );
    await observed.listeners(1);
    for (let i = 0; i < 6; i++) {
      await observed.bus.publish({
        id: `evt_${i}`,
        type: 'message.created',
        occurredAt: new Date(0).toISOString(),
        data: {
          id: `msg_${i}`,
          chatbotId: 'bot-slow',
          visitorId: 'v',
          content: `m${i}`,
          timestamp: new Date(0).toISOString(),
        },
      });
    }
    expect(await closed).toBe(SLOW_SUBSCRIBER_CLOSE_CODE);
  });
});

describe('connection_init', () => {
  const runtime = createRuntime({ storage: createMemoryStorage() });
  const server = createGraphQLWebSocketServer(runtime, {
    domain: createDomain(runtime),
    bus: createMemoryEventBus(),
    authenticate: testAuthenticate,
    connectionInitWaitTimeout: 30,
  });
  /** The real server core on a stand-in transport: resolves with the close code, or 0 if still open at `ms`. */
  function open(init: boolean, ms: number): Promise<number> {
    return new Promise<number>((resolve) => {
      let onMessage: (data: string) => Promise<void> = async () => {};
      const socket = {
        protocol: 'graphql-transport-ws',
        send: () => undefined,
        close: (code?: number) => resolve(code ?? 0),
        onMessage: (cb: (data: string) => Promise<void>) => {
          onMessage = cb;
        },
      };
      const closed = server.opened(socket, { close: (code) => resolve(code) });
      if (init)
        void onMessage(
          JSON.stringify({ type: 'connection_init', payload: { Authorization: 'Bearer service' } }),
        );
      setTimeout(() => {
        resolve(0);
        void closed(1000, '');
      }, ms);
    });
  }

  it('closes a socket that does not send it in time with 4408', async () => {
    expect(await open(false, 500)).toBe(CloseCode.ConnectionInitialisationTimeout);
  });

  it('leaves a socket open once it came', async () => {
    expect(await open(true, 200)).toBe(0);
  });
});

describe('WebSocket keep-alive on Node', () => {
  it('pings the peer and cuts one that stops answering', async () => {
    const server = await startServer({ authenticate: testAuthenticate }, { keepAliveMs: 20 });
    try {
      const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws', { autoPong: false });
      let pings = 0;
      socket.on('ping', () => pings++);
      const code = await new Promise<number>((resolve) => socket.once('close', resolve));
      expect(pings).toBeGreaterThanOrEqual(1);
      expect(code).toBe(1006); // terminated: no close frame
    } finally {
      await server.close();
    }
  });

  it('keeps a peer that answers pings', async () => {
    const server = await startServer({ authenticate: testAuthenticate }, { keepAliveMs: 20 });
    try {
      const socket = new WebSocket(server.wsUrl, 'graphql-transport-ws');
      await new Promise<void>((resolve) => {
        let pings = 0;
        socket.on('ping', () => {
          if (++pings === 5) resolve();
        });
      });
      expect(socket.readyState).toBe(WebSocket.OPEN);
      socket.close();
    } finally {
      await server.close();
    }
  });
});

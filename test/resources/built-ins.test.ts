/**
 * The built-in conversations and bookings, as a chatbot uses them: open a conversation and hand it to
 * a person over REST, book and confirm an appointment over GraphQL, learn of the hand-off by
 * subscription; a webhook receiver gets the events signed like every other.
 */
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { graphqlWebSocketRoute, type NodeServer, serve } from '../../src/node/index.js';
import { until } from '../support/until.js';
import { type ReceivedWebhook, startReceiver } from './receiver.js';

const ADMIN = 'sbk_built_in_resources_admin_key_0123456789';

describe('conversations and bookings', () => {
  let switchboard: Switchboard;
  let server: NodeServer;
  let receiver: NodeServer;
  let received: ReceivedWebhook[] = [];
  let clientId = '';

  const rest = async (path: string, method = 'GET', json?: unknown) => {
    const response = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  };
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return response.json();
  };

  beforeAll(async () => {
    switchboard = createSwitchboard({
      oauth: { adminApiKey: ADMIN },
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
      relayIntervalMs: 50,
    });
    switchboard.start();
    server = await serve({
      fetch: switchboard.fetch,
      port: 0,
      shutdownSignals: [],
      websockets: [graphqlWebSocketRoute(switchboard.graphqlWebSocket!)],
    });
    ({ server: receiver, received } = await startReceiver());
    await switchboard.oauth!.ready;
    clientId = (await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' })).id;
    const endpoint = await rest('/webhook-endpoints', 'POST', {
      url: `${receiver.url}/hooks`,
      eventTypes: ['conversation.*', 'booking.*'],
    });
    expect(endpoint.status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await switchboard?.close();
  });

  it('a bot opens a conversation over REST and hands it to a person; the bot learns of it by subscription', async () => {
    const ws = createClient({
      url: `${server.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${ADMIN}` },
      retryAttempts: 0,
    });
    const changes: { event: string; conversation: { status: string; agent: string | null } }[] = [];
    const stop = ws.subscribe<{ onConversationChange: (typeof changes)[number] }>(
      {
        query:
          'subscription { onConversationChange(chatbotId: "bot_salon") { event conversation { status agent } } }',
      },
      { next: (r) => changes.push(r.data!.onConversationChange), error: () => {}, complete: () => {} },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));

    const opened = await rest('/conversations', 'POST', {
      chatbotId: 'bot_salon',
      visitorId: 'visitor_7',
      channel: 'web',
      subject: 'Colour appointment',
    });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ id: expect.stringMatching(/^cnv_/), status: 'open', agent: null });
    const id = opened.body.id;
    expect((await rest(`/conversations/${id}`, 'PATCH', { status: 'waiting_for_agent' })).body.status).toBe(
      'waiting_for_agent',
    );
    const nobody = await rest(`/conversations/${id}`, 'PATCH', { status: 'with_agent' });
    expect(nobody.status).toBe(422);
    expect(nobody.body.errors[0]).toMatchObject({ field: 'agent', code: 'required' });
    const taken = await rest(`/conversations/${id}`, 'PATCH', { status: 'with_agent', agent: 'Sam' });
    expect(taken.body).toMatchObject({ status: 'with_agent', agent: 'Sam' });
    expect((await rest(`/conversations/${id}`, 'PATCH', { status: 'open' })).status).toBe(409);

    await until(() => changes.length >= 3);
    stop();
    await ws.dispose();
    expect(changes.map((c) => c.event)).toEqual([
      'conversation.created',
      'conversation.handoff_requested',
      'conversation.handoff_completed',
    ]);
    expect(changes[2]!.conversation).toEqual({ status: 'WITH_AGENT', agent: 'Sam' });
  });

  it('a bot books an appointment over GraphQL and confirms it; an overlapping confirmation is a conflict', async () => {
    const book = (startsAt: string) =>
      gql('mutation($input: CreateBookingInput!) { createBooking(input: $input) { id status } }', {
        input: { clientId, service: 'Colour', startsAt, durationMinutes: 90 },
      });
    const first = await book('2026-12-01T10:00:00Z');
    expect(first.data.createBooking.status).toBe('REQUESTED');
    const confirmed = await gql(
      `mutation { moveBooking(id: "${first.data.createBooking.id}", status: CONFIRMED) { status } }`,
    );
    expect(confirmed.data.moveBooking.status).toBe('CONFIRMED');

    const second = await book('2026-12-01T11:00:00Z');
    const clash = await gql(
      `mutation { moveBooking(id: "${second.data.createBooking.id}", status: CONFIRMED) { status } }`,
    );
    expect(clash.errors[0].extensions).toMatchObject({
      code: 'conflict',
      details: [{ field: 'startsAt', code: 'overlaps' }],
    });
    expect(clash.errors[0].message).toContain(first.data.createBooking.id);
    const later = await book('2026-12-01T11:30:00Z');
    const fine = await gql(
      `mutation { moveBooking(id: "${later.data.createBooking.id}", status: CONFIRMED) { status } }`,
    );
    expect(fine.data.moveBooking.status).toBe('CONFIRMED');

    const ofClient = await rest(`/clients/${clientId}/bookings?status=confirmed&sort=startsAt`);
    expect(ofClient.body.items.map((b: { startsAt: string }) => b.startsAt)).toEqual([
      '2026-12-01T10:00:00Z',
      '2026-12-01T11:30:00Z',
    ]);
  });

  it('a webhook receiver gets conversation.created, conversation.handoff_completed and booking.confirmed, signed', async () => {
    const wanted = [
      'conversation.created',
      'conversation.handoff_completed',
      'booking.requested',
      'booking.confirmed',
    ];
    await until(() => wanted.every((event) => received.some((r) => r.event === event)));
    const handoff = received.find((r) => r.event === 'conversation.handoff_completed')!;
    expect(handoff.data).toMatchObject({ agent: 'Sam', status: 'with_agent', chatbotId: 'bot_salon' });
    expect(received.every((r) => r.signature?.startsWith('sha256='))).toBe(true);
  });

  it('refuses in the service a change the declaration does not allow, whoever calls it', async () => {
    const { domain } = switchboard;
    const message = await domain.messages.create({ chatbotId: 'bot', visitorId: 'v-1', content: 'Hi' });
    const order = await domain.orders.create({ clientId, total: '1.00', currency: 'EUR' });
    // Messages are written once; orders are never replaced nor deleted, only moved.
    const refused = [
      domain.resources.message!.update(message.id, { content: 'Changed' }),
      domain.resources.message!.delete(message.id),
      domain.resources.order!.delete(order.id),
    ];
    for (const attempt of refused) {
      await expect(attempt).rejects.toMatchObject({ code: 'method_not_allowed' });
    }
    await expect(domain.resources.message!.update(message.id, {})).rejects.toThrow(
      'Messages cannot be changed: their declaration does not allow it.',
    );
    expect((await domain.messages.get(message.id)).content).toBe('Hi');
    expect((await domain.orders.get(order.id)).status).toBe('pending');
  });

  it("a message joins its visitor's open conversation with the chatbot, or starts one", async () => {
    const send = (json: Record<string, unknown>) => rest('/chatbots/joining-bot/messages', 'POST', json);
    const first = await send({ visitorId: 'v-join', content: 'Hello' });
    expect(first.status).toBe(201);
    const conversationId = first.body.conversationId as string;
    expect(conversationId).toMatch(/^cnv_/);
    const conversation = await rest(`/conversations/${conversationId}`);
    expect(conversation.body).toMatchObject({
      chatbotId: 'joining-bot',
      visitorId: 'v-join',
      status: 'open',
    });
    const second = await send({ visitorId: 'v-join', content: 'Anyone there?' });
    expect(second.body.conversationId).toBe(conversationId);
    const other = await send({ visitorId: 'v-other', content: 'Hi' });
    expect(other.body.conversationId).not.toBe(conversationId);
    const listed = await rest(`/messages?conversationId=${conversationId}`);
    expect(listed.body.items.map((m: { content: string }) => m.content)).toEqual(['Hello', 'Anyone there?']);

    // A closed conversation takes nothing new: named, it is a conflict; unnamed, a new one starts.
    expect((await rest(`/conversations/${conversationId}`, 'PATCH', { status: 'closed' })).status).toBe(200);
    const toClosed = await send({ visitorId: 'v-join', content: 'Back again', conversationId });
    expect(toClosed.status).toBe(409);
    expect(toClosed.body.errors).toEqual([
      expect.objectContaining({ field: 'conversationId', code: 'closed' }),
    ]);
    const again = await send({ visitorId: 'v-join', content: 'Back again' });
    expect(again.status).toBe(201);
    expect(again.body.conversationId).not.toBe(conversationId);
    // A conversation of another visitor, or one that does not exist, is refused.
    const foreign = await send({
      visitorId: 'v-join',
      content: 'x',
      conversationId: other.body.conversationId,
    });
    expect(foreign.status).toBe(422);
    const absent = await send({ visitorId: 'v-join', content: 'x', conversationId: 'cnv_none' });
    expect(absent.body.errors).toEqual([
      expect.objectContaining({ field: 'conversationId', code: 'unknown_reference' }),
    ]);
  });
});

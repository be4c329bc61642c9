/**
 * The isolation defects outside testing found, replayed as reported: with Ada's user token, Grace's
 * messages were readable and writable, and Ada could hand her conversation to Grace's client. The
 * generated suite (isolation.test.ts) holds the same rules for every resource.
 */
import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, appTokenFor, type Demo, startDemo } from '../oauth/support.js';

const SCOPES = 'chat.messages.read chat.messages.write chat.conversations.read chat.conversations.write';

describe("a user and another user's conversation", () => {
  let demo: Demo;
  let ada: string;
  let graceConversation: string;
  let adaConversation: string;
  let graceMessage: string;

  const api = async (method: string, path: string, body?: unknown, token = ada) => {
    const response = await fetch(`${demo.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    demo = await startDemo({
      graphql: {},
      rest: { versions: [{ basePath: '/api/v2', apiVersion: 2 }] },
    });
    ada = await appTokenFor(demo, demo.ada, SCOPES.split(' '));
    const admin = (method: string, path: string, body?: unknown) => api(method, path, body, ADMIN_KEY);
    const conversation = async (clientId: string, visitorId: string) =>
      (
        await admin('POST', '/api/v2/conversations', {
          chatbotId: 'support-bot',
          visitorId,
          channel: 'web',
          clientId,
        })
      ).body.id as string;
    graceConversation = await conversation(demo.grace.id, 'visitor-grace');
    adaConversation = await conversation(demo.ada.id, 'visitor-ada');
    graceMessage = (
      await admin('POST', '/api/v2/chatbots/support-bot/messages', {
        visitorId: 'visitor-grace',
        content: 'my card number is …',
      })
    ).body.id;
  });
  afterAll(() => demo.close());

  it("does not show Grace's messages to Ada over REST", async () => {
    expect((await api('GET', `/api/v2/conversations/${graceConversation}`)).status).toBe(404);
    expect((await api('GET', `/api/v2/messages/${graceMessage}`)).status).toBe(404);
    for (const path of [
      '/api/v2/chatbots/support-bot/messages',
      '/api/v2/messages',
      `/api/v2/messages?conversationId=${graceConversation}`,
      '/api/v2/messages?visitorId=visitor-grace',
    ]) {
      const list = await api('GET', path);
      expect(list.status, path).toBe(200);
      expect(list.text, path).not.toContain(graceMessage);
    }
  });

  it("does not show Grace's messages to Ada over GraphQL", async () => {
    const query = `{ message(id: "${graceMessage}") { id } messages(chatbotId: "support-bot") { id } }`;
    const answer = await api('POST', '/graphql', { query });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.message).toBeNull();
    expect(answer.text).not.toContain(graceMessage);
  });

  it("does not stream Grace's new messages to Ada over SSE", async () => {
    const seen: string[] = [];
    const client = createClient({
      url: `${demo.base}/graphql`,
      retryAttempts: 0,
      headers: { authorization: `Bearer ${ada}` },
    });
    const stops = [
      'subscription { onNewMessage(chatbotId: "support-bot") { id content } }',
      'subscription { onMessageChange { event message { id content } } }',
    ].map((query) =>
      client.subscribe(
        { query },
        {
          next: (v) => seen.push(JSON.stringify(v)),
          error: (e) => seen.push(`error ${e}`),
          complete: () => {},
        },
      ),
    );
    demo.switchboard.start();
    await new Promise((r) => setTimeout(r, 300));
    await api(
      'POST',
      '/api/v2/chatbots/support-bot/messages',
      { visitorId: 'visitor-grace', content: 'secret' },
      ADMIN_KEY,
    );
    await api(
      'POST',
      '/api/v2/chatbots/support-bot/messages',
      { visitorId: 'visitor-ada', content: 'hello ada' },
      ADMIN_KEY,
    );
    const deadline = Date.now() + 5_000;
    while (seen.filter((s) => s.includes('hello ada')).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    for (const stop of stops) stop();
    client.dispose();
    expect(seen.filter((s) => s.includes('hello ada'))).toHaveLength(2);
    expect(seen.join('\n')).not.toContain('secret');
  });

  it("does not let Ada write into Grace's conversation", async () => {
    const byVisitor = await api('POST', '/api/v2/chatbots/support-bot/messages', {
      visitorId: 'visitor-grace',
      content: 'from ada',
    });
    expect(byVisitor.status).toBe(403);
    const byId = await api('POST', '/api/v2/chatbots/support-bot/messages', {
      visitorId: 'visitor-grace',
      conversationId: graceConversation,
      content: 'from ada',
    });
    expect(byId.status).toBe(422);
    const theirs = await api(
      'GET',
      `/api/v2/messages?conversationId=${graceConversation}`,
      undefined,
      ADMIN_KEY,
    );
    expect(theirs.text).not.toContain('from ada');
  });

  it('lets Ada write into her own conversation, and start one', async () => {
    const own = await api('POST', '/api/v2/chatbots/support-bot/messages', {
      visitorId: 'visitor-ada',
      content: 'mine',
    });
    expect(own.status).toBe(201);
    expect(own.body.conversationId).toBe(adaConversation);
    const fresh = await api('POST', '/api/v2/chatbots/support-bot/messages', {
      visitorId: 'visitor-ada-2',
      content: 'a new conversation',
    });
    expect(fresh.status).toBe(201);
    const started = await api('GET', `/api/v2/conversations/${fresh.body.conversationId}`);
    expect(started.body.clientId).toBe(demo.ada.id);
  });

  it('does not let Ada hand her conversation to Grace (PATCH, PUT, GraphQL)', async () => {
    const path = `/api/v2/conversations/${adaConversation}`;
    expect((await api('PATCH', path, { clientId: demo.grace.id })).status).toBe(403);
    expect((await api('PUT', path, { clientId: demo.grace.id })).status).toBe(403);
    const mutation = `mutation { updateConversation(id: "${adaConversation}", input: { clientId: "${demo.grace.id}" }) { id } }`;
    const graphql = await api('POST', '/graphql', { query: mutation });
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('forbidden');
    const now = await api('GET', path, undefined, ADMIN_KEY);
    expect(now.body.clientId).toBe(demo.ada.id);
  });
});

/** GraphQL over Server-Sent Events (graphql-sse, distinct connections mode) on the GraphQL path. */

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/auth.js';
import { SwitchboardError } from '../../src/core/errors.js';
import { until } from '../support/until.js';
import { observedBus, startServer, type TestServer, testAuthenticate } from './helpers.js';

const onNewMessage = (chatbotId: string): string =>
  `subscription { onNewMessage(chatbotId: "${chatbotId}") { content visitor_id } }`;

// Tokens this test can revoke: `Bearer revocable:<n>` is valid until its n is removed.
const revocable = new Set<string>();
async function authenticate(request: Request): Promise<Principal> {
  const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
  if (token.startsWith('revocable:')) {
    if (!revocable.has(token)) throw new SwitchboardError('unauthorized', 'Revoked.');
    return { kind: 'service', subject: token, scopes: new Set(['chat.messages.read']) };
  }
  return testAuthenticate(request);
}

describe('GraphQL over SSE', () => {
  let server: TestServer;
  const observed = observedBus();
  const bus = observed.bus;
  beforeAll(async () => {
    server = await startServer({
      authenticate,
      bus,
      graphql: { credentialCheckMs: 50, limits: { maxSubscriberQueue: 5, maxDepth: 1 } },
    });
  });
  afterAll(() => server.close());

  const client = (token: string | null = 'service') =>
    createClient({
      url: server.url,
      retryAttempts: 0,
      headers: token === null ? {} : { authorization: `Bearer ${token}` },
    });
  const publish = (chatbotId: string, content: string, n = 0) =>
    bus.publish({
      id: `evt_${chatbotId}_${n}_${Math.random()}`,
      type: 'message.created',
      occurredAt: '2026-01-01T00:00:00Z',
      data: { id: `msg_${n}`, chatbotId, visitorId: 'v', content, timestamp: '2026-01-01T00:00:00Z' },
    });

  it("delivers a chatbot's new messages to graphql-sse's own client", async () => {
    const results = client().iterate({ query: onNewMessage('bot-sse') });
    const first = results.next();
    await observed.listeners(1);
    await publish('bot-sse', 'hello over SSE');
    expect((await first).value).toEqual({
      data: { onNewMessage: { content: 'hello over SSE', visitor_id: 'v' } },
    });
    await results.return?.();
    await observed.none();
  });

  it('runs a query over the stream: one result, then complete', async () => {
    const results: unknown[] = [];
    for await (const result of client().iterate({ query: '{ __typename }' })) results.push(result);
    expect(results).toEqual([{ data: { __typename: 'Query' } }]);
  });

  it('applies limits: an error result, masked like every other', async () => {
    const deep: unknown[] = [];
    for await (const result of client().iterate({ query: '{ clients { orders { id } } }' }))
      deep.push(result);
    expect(JSON.stringify(deep)).toContain('"code":"query_too_deep"');
  });

  const subscribe = (headers: Record<string, string>) =>
    fetch(server.url, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: onNewMessage('bot-refused') }),
    });

  it('refuses a subscription without credentials with 401 and the Bearer challenge, opening no stream', async () => {
    const response = await subscribe({});
    expect(response.status).toBe(401);
    // With the OAuth server mounted, the challenge names the resource's metadata (RFC 9728 §5.1) too.
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="switchboard", scope="chat\.messages\.read", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/graphql"$/,
    );
    expect(response.headers.get('content-type')).not.toMatch(/event-stream/);
    expect((await response.json()).errors[0].extensions.code).toBe('unauthorized');
    await observed.none();
    // graphql-sse's client reports the refusal as such, with the response to read the challenge from.
    const refused = await client(null)
      .iterate({ query: onNewMessage('bot-refused') })
      .next()
      .catch((error: { response?: Response }) => error.response);
    expect(refused).toMatchObject({ status: 401 });
    expect((refused as Response).headers.get('www-authenticate')).toContain('Bearer realm="switchboard"');
  });

  it('refuses a subscription without its scope with 403 and insufficient_scope, opening no stream', async () => {
    const response = await subscribe({ authorization: 'Bearer scopes:crm.clients.read' });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="switchboard", error="insufficient_scope", .*scope="chat.messages.read", resource_metadata="http:\/\/[^"]+\/.well-known\/oauth-protected-resource\/graphql"$/,
    );
    expect((await response.json()).errors[0].extensions.code).toBe('forbidden');
    await observed.none();
  });

  it('refuses bad credentials with 401 and invalid_token', async () => {
    const response = await subscribe({ authorization: 'Bearer nonsense' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="switchboard", error="invalid_token"/,
    );
  });

  it('ends the stream of credentials that stop being accepted', async () => {
    revocable.add('revocable:1');
    const results = client('revocable:1').iterate({ query: onNewMessage('bot-revoked') });
    const pending = results.next();
    await observed.listeners(1);
    revocable.delete('revocable:1');
    // The stream says why in a last result, then completes.
    expect(JSON.stringify((await pending).value)).toContain('"code":"unauthorized"');
    expect((await results.next()).done).toBe(true);
    await observed.none();
  });

  it('ends the stream of a client that stops reading, and only that one', async () => {
    const url = new URL(server.url);
    const body = JSON.stringify({ query: onNewMessage('bot-stalled') });
    const response = await new Promise<IncomingMessage>((resolve) => {
      const headers = {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: 'Bearer service',
      };
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers },
        resolve,
      );
      req.end(body);
    });
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    response.pause(); // and never read again
    // A reader with other scopes (so another group) takes every event as it comes.
    const received: unknown[] = [];
    const results = client('scopes:chat.messages.read').iterate({ query: onNewMessage('bot-stalled') });
    const reader = (async () => {
      for await (const result of results) received.push(result);
    })();
    await observed.listeners(2);
    const content = 'x'.repeat(4000);
    let sent = 0;
    // Events come one I/O turn apart, as from the relay or another instance's bus.
    const next = async () => {
      await publish('bot-stalled', content, sent++);
      await new Promise((resolve) => setImmediate(resolve));
    };
    while (observed.count() > 1 && sent < 20_000) await next();
    expect(observed.count()).toBe(1);
    for (let i = 0; i < 10; i++) await next();
    await until(() => received.length === sent, 'the reader to receive every event');
    response.destroy();
    await results.return?.();
    await reader;
  });
});

describe('GraphQL over SSE at shutdown', () => {
  it('cuts open event streams at once instead of waiting out the drain timeout', async () => {
    const observed = observedBus();
    const server = await startServer({ bus: observed.bus });
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: 'Bearer service',
      },
      body: JSON.stringify({ query: onNewMessage('bot-shutdown') }),
    });
    expect(response.status).toBe(200);
    const reading = response.text().catch(() => 'cut');
    await observed.listeners(1);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(5_000); // the drain timeout is 10 s
    await reading;
    await observed.none();
  });
});

/** examples/frameworks/express.ts over real HTTP: Switchboard behind Express 5 and its `express.json()`. */
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningExpressApp, startExpressApp } from '../../examples/frameworks/express.js';
import { ADMIN_KEY, createAndReadClient, firstMessageOverSse, graphql, postMessage } from './support.js';

// The example imports the package as an app would: the built one (`npm test` builds it first).

describe('Switchboard in Express 5', () => {
  let app: RunningExpressApp;
  beforeAll(async () => {
    app = await startExpressApp({ port: 0, adminApiKey: ADMIN_KEY });
  });
  afterAll(() => app?.close());

  it("answers the host's own routes, its JSON body parsed by express.json()", async () => {
    expect(await (await fetch(`${app.url}/hello`)).json()).toEqual({ hello: 'from express' });
    const echo = await fetch(`${app.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
    });
    expect(await echo.json()).toEqual({ ok: true });
  });

  it('creates and reads a client over REST, the POST body read by express.json() first', async () => {
    await createAndReadClient(app.url, 'Ada Lovelace');
  });

  it('takes a URL-encoded form read by express.urlencoded() first', async () => {
    // The token endpoint reads the form: an unknown client is invalid_client, not a lost body.
    const response = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody&client_secret=wrong',
    });
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('answers a GraphQL query', async () => {
    await createAndReadClient(app.url, 'Grace Hopper');
    expect(await graphql(app.url, '{ clients(limit: 100) { name } }')).toMatchObject({
      data: { clients: expect.arrayContaining([{ name: 'Grace Hopper' }]) },
    });
  });

  it('streams a GraphQL subscription over SSE', async () => {
    expect(await firstMessageOverSse(app.url, 'bot-sse')).toMatchObject({
      data: { onNewMessage: { content: expect.stringMatching(/^hello \d+$/) } },
    });
  });

  it('serves GraphQL subscriptions over WebSocket on the same server', async () => {
    const client = createClient({
      url: `${app.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { Authorization: `Bearer ${ADMIN_KEY}` },
    });
    try {
      const first = new Promise((resolve, reject) => {
        client.subscribe(
          { query: 'subscription { onNewMessage(chatbotId: "bot-ws") { content } }' },
          { next: resolve, error: reject, complete: () => reject(new Error('completed early')) },
        );
      });
      let n = 0;
      const poster = setInterval(() => void postMessage(app.url, 'bot-ws', `over ws ${++n}`), 200);
      try {
        expect(await first).toMatchObject({
          data: { onNewMessage: { content: expect.stringMatching(/^over ws \d+$/) } },
        });
      } finally {
        clearInterval(poster);
      }
    } finally {
      await client.dispose();
    }
  });
});

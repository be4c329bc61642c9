/**
 * examples/frameworks/express.ts over real HTTP: Switchboard behind Express 5 and its `express.json()`,
 * and graphql-ws on Express's own server through `attachWebSockets`.
 */
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type RunningExpressApp, startExpressApp } from '../../examples/frameworks/express.js';
import { ADMIN_KEY, itServesSwitchboard, postMessage } from './support.js';

// The example imports the package as an app would: the built one (`npm test` builds it first).

describe('Switchboard in Express 5', () => {
  let app: RunningExpressApp;
  beforeAll(async () => {
    app = await startExpressApp({ port: 0, adminApiKey: ADMIN_KEY });
  });
  afterAll(() => app?.close());

  // Every request below goes through express.json() and express.urlencoded() first.
  itServesSwitchboard('express', () => app);

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

  it('refuses a handshake without the GraphQL sub-protocol (400) and another path (404)', async () => {
    const statusOf = (path: string, protocols: string[]) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(`${app.url.replace(/^http/, 'ws')}${path}`, protocols);
        socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.once('open', () => {
          socket.close();
          resolve(101);
        });
        socket.once('error', () => resolve(-1));
      });
    expect(await statusOf('/graphql', [])).toBe(400);
    expect(await statusOf('/graphql', ['graphql-ws'])).toBe(400);
    expect(await statusOf('/elsewhere', ['graphql-transport-ws'])).toBe(404);
    expect(await statusOf('/graphql', ['graphql-transport-ws'])).toBe(101);
  });
});

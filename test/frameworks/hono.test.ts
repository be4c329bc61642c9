/** examples/frameworks/hono.ts over real HTTP: Switchboard's fetch handler behind Hono on Node. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHonoApp, startHonoApp } from '../../examples/frameworks/hono.js';
import { ADMIN_KEY, createAndReadClient, firstMessageOverSse, graphql } from './support.js';

// The example imports the package as an app would: the built one (`npm test` builds it first).

describe('Switchboard in Hono', () => {
  let app: RunningHonoApp;
  beforeAll(async () => {
    app = await startHonoApp({ port: 0, adminApiKey: ADMIN_KEY });
  });
  afterAll(() => app?.close());

  it("answers the host's own routes, with Hono's JSON body", async () => {
    expect(await (await fetch(`${app.url}/hello`)).json()).toEqual({ hello: 'from hono' });
    const echo = await fetch(`${app.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
    });
    expect(await echo.json()).toEqual({ ok: true });
  });

  it('creates and reads a client over REST', async () => {
    await createAndReadClient(app.url, 'Ada Lovelace');
  });

  it('takes a URL-encoded form', async () => {
    const token = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody&client_secret=wrong',
    });
    expect(await token.json()).toMatchObject({ error: 'invalid_client' });
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
});

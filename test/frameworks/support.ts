/**
 * What every framework example must do over real HTTP on loopback, whatever hosts it: Switchboard's
 * REST, GraphQL and SSE answers beside the host's own routes.
 */
import { expect, it } from 'vitest';

/** The admin API key the examples are started with (any key of 32+ characters). */
export const ADMIN_KEY = 'sbk_framework_examples_admin_key_0123456789';

const auth = { authorization: `Bearer ${ADMIN_KEY}` };

/** Creates a client over REST, then reads it back at its `Location`. */
export async function createAndReadClient(url: string, name: string): Promise<void> {
  const created = await fetch(`${url}/api/v1/clients`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name, email: `${name.toLowerCase().replace(/\W/g, '.')}@example.com` }),
  });
  expect(created.status).toBe(201);
  const client = (await created.json()) as { id: string; name: string };
  expect(client.name).toBe(name);
  const location = created.headers.get('location');
  expect(location).toBe(`/api/v1/clients/${client.id}`);
  const read = await fetch(new URL(location!, url), { headers: auth });
  expect(read.status).toBe(200);
  expect(await read.json()).toMatchObject({ id: client.id, name });
}

/** Runs a GraphQL query over HTTP POST. */
export async function graphql(url: string, query: string): Promise<unknown> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  expect(response.status).toBe(200);
  return response.json();
}

/** Posts a message to a chatbot's conversation over REST. */
export async function postMessage(url: string, chatbotId: string, content: string): Promise<void> {
  const response = await fetch(`${url}/api/v1/chatbots/${chatbotId}/messages`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ visitorId: 'v1', content }),
  });
  expect(response.status).toBe(201);
}

/**
 * Subscribes to a chatbot's new messages over SSE (graphql-sse, distinct connections) and reads the
 * stream as it arrives, posting a message every 200 ms until one comes through: the stream gives no
 * sign of when the subscription listens, so the first post may come too early.
 */
export async function firstMessageOverSse(url: string, chatbotId: string): Promise<unknown> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: `subscription { onNewMessage(chatbotId: "${chatbotId}") { content } }` }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let n = 0;
  const post = (): void => void postMessage(url, chatbotId, `hello ${++n}`);
  const poster = setInterval(post, 200);
  post();
  try {
    let text = '';
    for (;;) {
      const next = /event: next\ndata: (.+)\n/.exec(text);
      if (next) return JSON.parse(next[1]!);
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended without an event: ${text}`);
      text += value;
    }
  } finally {
    clearInterval(poster);
    await reader.cancel();
  }
}

/**
 * The cases every mount passes, whatever the framework: its own routes (`/hello`, and `/echo` of a JSON
 * body its parser read), REST create and read, a URL-encoded form, a GraphQL query, a subscription
 * over SSE. `app` is read when the cases run, after the suite's `beforeAll` started it.
 */
export function itServesSwitchboard(framework: string, app: () => { readonly url: string }): void {
  it("answers the host's own routes, their JSON body read by the framework's parser", async () => {
    expect(await (await fetch(`${app().url}/hello`)).json()).toEqual({ hello: `from ${framework}` });
    const echo = await fetch(`${app().url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
    });
    expect(await echo.json()).toEqual({ ok: true });
  });

  it('creates and reads a client over REST', async () => {
    await createAndReadClient(app().url, 'Ada Lovelace');
  });

  it('takes a URL-encoded form', async () => {
    // The token endpoint reads the form: an unknown client is invalid_client, not a lost body.
    const token = await fetch(`${app().url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody&client_secret=wrong',
    });
    expect(await token.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('answers a GraphQL query', async () => {
    await createAndReadClient(app().url, 'Grace Hopper');
    expect(await graphql(app().url, '{ clients(limit: 100) { name } }')).toMatchObject({
      data: { clients: expect.arrayContaining([{ name: 'Grace Hopper' }]) },
    });
  });

  it('streams a GraphQL subscription over SSE', async () => {
    expect(await firstMessageOverSse(app().url, 'bot-sse')).toMatchObject({
      data: { onNewMessage: { content: expect.stringMatching(/^hello \d+$/) } },
    });
  });
}

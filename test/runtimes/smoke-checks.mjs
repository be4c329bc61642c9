// The runtime smoke suite's checks, shared by every runtime's script (Node: node-smoke.mjs, Deno:
// test/deno/matrix-smoke.ts): given a switchboard served at `base` with the admin `key`, and a webhook
// receiver collecting into `hooks`, it calls it over real HTTP and WebSocket and answers its findings.
// Plain JavaScript, so the lowest Node runs it without a loader.
import { verifyWebhook } from '../../dist/webhooks/index.js';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param {{ base: string, key: string, switchboard: any, receiverUrl: string,
 *   hooks: { headers: any, body: string }[], WebSocket: any, runtime: string }} options
 */
export async function smokeChecks({ base, key, switchboard, receiverUrl, hooks, WebSocket, runtime }) {
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const json = async (path, init = {}) => {
    const response = await fetch(`${base}${path}`, { ...init, headers: { ...auth, ...init.headers } });
    return { status: response.status, body: await response.json() };
  };
  const { secret } = await switchboard.webhooks.admin.createEndpoint({
    url: receiverUrl,
    eventTypes: ['client.*'],
  });

  // REST: create, read, list.
  const created = await json('/api/v1/clients', {
    method: 'POST',
    body: JSON.stringify({ name: `${runtime} client`, email: `${runtime}@example.com` }),
  });
  const read = await json(`/api/v1/clients/${created.body.id}`);
  const list = await json('/api/v1/clients');

  // GraphQL: a query and a mutation.
  const query = await json('/graphql', {
    method: 'POST',
    body: JSON.stringify({ query: '{ clients { email } }' }),
  });
  const mutation = await json('/graphql', {
    method: 'POST',
    body: JSON.stringify({
      query: 'mutation { createClient(input: { name: "Second", email: "second@example.com" }) { email } }',
    }),
  });

  // A subscription over WebSocket receives a message sent after it started.
  const socket = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  const received = new Promise((resolve, reject) => {
    socket.onerror = () => reject(new Error('socket error'));
    socket.onopen = () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${key}` } }));
    socket.onmessage = (event) => {
      const message = JSON.parse(String(event.data));
      if (message.type === 'connection_ack')
        socket.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: { query: `subscription { onNewMessage(chatbotId: "bot-${runtime}") { content } }` },
          }),
        );
      if (message.type === 'next') resolve(message.payload.data.onNewMessage.content);
    };
  });
  // Nothing says when the subscription listens: post until one message comes through.
  const sent = [];
  const poster = setInterval(async () => {
    const posted = await json(`/api/v1/chatbots/bot-${runtime}/messages`, {
      method: 'POST',
      body: JSON.stringify({ visitorId: 'v1', content: `hello from ${runtime}` }),
    });
    sent.push(posted.status);
  }, 100);
  const subscription = await Promise.race([received, pause(5000).then(() => 'timeout')]);
  clearInterval(poster);
  socket.close();

  // OAuth: discovery and a client-credentials token that reads.
  const metadata = await json('/.well-known/oauth-authorization-server');
  const machine = await switchboard.oauth.registerClient({
    name: `${runtime} bot`,
    type: 'confidential',
    redirectUris: [],
    scopes: ['crm.clients.read'],
    grantTypes: ['client_credentials'],
  });
  const token = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: machine.client.id,
      client_secret: machine.secret,
    }),
  });
  const { access_token } = await token.json();
  const withToken = await fetch(`${base}/api/v1/clients`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  await withToken.body?.cancel();

  // Webhooks: the deliveries of both creates arrive, signed.
  for (let i = 0; i < 100 && hooks.length < 2; i++) await pause(50);
  const verified = await Promise.all(
    hooks.map((h) =>
      verifyWebhook({ body: h.body, headers: h.headers, secrets: [secret] }).then((v) => v.ok),
    ),
  );

  return {
    rest: [created.status, read.body.email, list.body.items.length],
    graphql: [query.body.data.clients.length, mutation.body.data.createClient.email],
    subscription,
    messagesPosted: sent.every((status) => status === 201),
    oauth: [metadata.body.token_endpoint?.endsWith('/oauth/token'), token.status, withToken.status],
    webhooks: verified,
  };
}

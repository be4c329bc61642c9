// Runs on the Node binary under test (plain JavaScript, no loader): the built package served by
// switchboard-kit/node, called over real HTTP and WebSocket. Prints its findings as one JSON line.
// Started by test/runtimes/node-versions.test.ts.
import { createServer } from 'node:http';
import WebSocket from 'ws';
import { createSwitchboard } from '../../dist/index.js';
import { graphqlWebSocketRoute, serve } from '../../dist/node/index.js';
import { verifyWebhook } from '../../dist/webhooks/index.js';

const KEY = 'sbk_node_versions_smoke_key_0123456789abcdefghij';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

const hooks = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
    res.end('ok');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;

const switchboard = createSwitchboard({
  oauth: { adminApiKey: KEY },
  relayIntervalMs: 20,
  webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true }, pollIntervalMs: 20 },
});
await switchboard.oauth.ready;
switchboard.start();
const server = await serve({
  fetch: switchboard.fetch,
  port: 0,
  shutdownSignals: [],
  websockets: [graphqlWebSocketRoute(switchboard.graphqlWebSocket)],
});
const base = server.url;
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
  body: JSON.stringify({ name: 'Node Client', email: 'node@example.com' }),
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
  socket.on('error', reject);
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    if (message.type === 'connection_ack')
      socket.send(
        JSON.stringify({
          id: '1',
          type: 'subscribe',
          payload: { query: 'subscription { onNewMessage(chatbotId: "bot-node") { content } }' },
        }),
      );
    if (message.type === 'next') resolve(message.payload.data.onNewMessage.content);
  });
});
socket.on('open', () =>
  socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${KEY}` } })),
);
// Nothing says when the subscription listens: post until one message comes through.
const sent = [];
const poster = setInterval(async () => {
  sent.push(
    (
      await json('/api/v1/chatbots/bot-node/messages', {
        method: 'POST',
        body: JSON.stringify({ visitorId: 'v1', content: 'hello from node' }),
      })
    ).status,
  );
}, 100);
const subscription = await Promise.race([received, new Promise((r) => setTimeout(() => r('timeout'), 5000))]);
clearInterval(poster);
socket.close();

// OAuth: discovery and a client-credentials token that reads.
const metadata = await json('/.well-known/oauth-authorization-server');
const machine = await switchboard.oauth.registerClient({
  name: 'Node bot',
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

// Webhooks: the deliveries of both creates arrive, signed.
for (let i = 0; i < 100 && hooks.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
const verified = await Promise.all(
  hooks.map((h) => verifyWebhook({ body: h.body, headers: h.headers, secrets: [secret] }).then((v) => v.ok)),
);

console.log(
  JSON.stringify({
    node: process.version,
    rest: [created.status, read.body.email, list.body.items.length],
    graphql: [query.body.data.clients.length, mutation.body.data.createClient.email],
    subscription,
    messagesPosted: sent.every((s) => s === 201),
    oauth: [metadata.body.token_endpoint?.endsWith('/oauth/token'), token.status, withToken.status],
    webhooks: verified,
  }),
);
await server.close();
await switchboard.close();
receiver.close();

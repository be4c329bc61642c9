// Runs on Deno (not Node): the same checks as test/runtimes/node-smoke.mjs and test/bun/smoke.ts, on
// the built package served by Deno.serve with acceptWebSocket for subscriptions. Prints its findings
// as one JSON line. Started by test/deno/deno.test.ts after `npm run build`.

import { acceptWebSocket } from '../../dist/graphql/index.js';
import { createSwitchboard } from '../../dist/index.js';
import { verifyWebhook } from '../../dist/webhooks/index.js';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
  upgradeWebSocket(
    request: Request,
    options: { protocol: string; idleTimeout: number },
  ): {
    socket: WebSocket;
    response: Response;
  };
};

const KEY = 'sbk_deno_matrix_smoke_key_0123456789abcdefghijk';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

const hooks: { headers: Headers; body: string }[] = [];
let receiverPort = 0;
const receiver = Deno.serve(
  {
    port: 0,
    hostname: '127.0.0.1',
    onListen: (a) => {
      receiverPort = a.port;
    },
  },
  async (request) => {
    hooks.push({ headers: request.headers, body: await request.text() });
    return new Response('ok');
  },
);

const switchboard = createSwitchboard({
  oauth: { adminApiKey: KEY },
  relayIntervalMs: 20,
  webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true }, pollIntervalMs: 20 },
});
await switchboard.oauth!.ready;
switchboard.start();
let port = 0;
const server = Deno.serve(
  {
    port: 0,
    hostname: '127.0.0.1',
    onListen: (a) => {
      port = a.port;
    },
  },
  (request) =>
    request.headers.get('upgrade') === 'websocket'
      ? acceptWebSocket(switchboard.graphqlWebSocket!, request, (protocol) =>
          Deno.upgradeWebSocket(request, { protocol, idleTimeout: 12 }),
        )
      : switchboard.fetch(request),
);
const base = `http://127.0.0.1:${port}`;
// biome-ignore lint/suspicious/noExplicitAny: the smoke reads whatever JSON comes back.
const json = async (path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${base}${path}`, { ...init, headers: { ...auth, ...init.headers } });
  return { status: response.status, body: await response.json() };
};

const { secret } = await switchboard.webhooks!.admin.createEndpoint({
  url: `http://127.0.0.1:${receiverPort}/hooks`,
  eventTypes: ['client.*'],
});

const created = await json('/api/v1/clients', {
  method: 'POST',
  body: JSON.stringify({ name: 'Deno Client', email: 'deno@example.com' }),
});
const read = await json(`/api/v1/clients/${created.body.id}`);
const list = await json('/api/v1/clients');
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

// A subscription over Deno's WebSocket client receives a message sent after it started.
const socket = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
const received = new Promise<string>((resolve, reject) => {
  socket.onerror = () => reject(new Error('socket error'));
  socket.onopen = () =>
    socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${KEY}` } }));
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    if (message.type === 'connection_ack')
      socket.send(
        JSON.stringify({
          id: '1',
          type: 'subscribe',
          payload: { query: 'subscription { onNewMessage(chatbotId: "bot-deno") { content } }' },
        }),
      );
    if (message.type === 'next') resolve(message.payload.data.onNewMessage.content);
  };
});
const sent: number[] = [];
const poster = setInterval(async () => {
  const posted = await json('/api/v1/chatbots/bot-deno/messages', {
    method: 'POST',
    body: JSON.stringify({ visitorId: 'v1', content: 'hello from deno' }),
  });
  sent.push(posted.status);
}, 100);
const subscription = await Promise.race([received, new Promise((r) => setTimeout(() => r('timeout'), 5000))]);
clearInterval(poster);
socket.close();

const metadata = await json('/.well-known/oauth-authorization-server');
const machine = await switchboard.oauth!.registerClient({
  name: 'Deno bot',
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
    client_secret: machine.secret!,
  }),
});
const { access_token } = await token.json();
const withToken = await fetch(`${base}/api/v1/clients`, {
  headers: { authorization: `Bearer ${access_token}` },
});
await withToken.body?.cancel();

for (let i = 0; i < 100 && hooks.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
const verified = await Promise.all(
  hooks.map((h) => verifyWebhook({ body: h.body, headers: h.headers, secrets: [secret] }).then((v) => v.ok)),
);

console.log(
  JSON.stringify({
    rest: [created.status, read.body.email, list.body.items.length],
    graphql: [query.body.data.clients.length, mutation.body.data.createClient.email],
    subscription,
    messagesPosted: sent.every((s) => s === 201),
    oauth: [metadata.body.token_endpoint?.endsWith('/oauth/token'), token.status, withToken.status],
    webhooks: verified,
  }),
);
await switchboard.close();
await server.shutdown();
await receiver.shutdown();

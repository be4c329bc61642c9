// Runs on Bun (not Node): serves the built package with Bun.serve and its server WebSockets, then acts
// as the client over real HTTP and WebSocket on loopback — REST, GraphQL, a subscription, OAuth, and a
// signed webhook delivered to a receiver in this same process. Prints its findings as one JSON line.
// Started by test/bun/bun.test.ts after the package is built.
import { type BunServer, type BunWebSocketHandler, bunGraphQLWebSocket } from '../../dist/bun/index.js';
import { createSwitchboard } from '../../dist/index.js';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../dist/webhooks/index.js';

declare const Bun: {
  serve(options: {
    port: number;
    hostname: string;
    fetch(request: Request, server: BunServer): Response | Promise<Response> | undefined;
    websocket?: BunWebSocketHandler;
  }): { readonly port: number; stop(closeActiveConnections?: boolean): Promise<void> };
};

const ADMIN = 'sbk_bun_smoke_admin_key_0123456789abcdefghij';
const auth = { authorization: `Bearer ${ADMIN}` };

/** Polls until `value` gives something, or fails naming what never came. */
async function until<T>(label: string, value: () => T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = value();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const switchboard = createSwitchboard({
  oauth: { adminApiKey: ADMIN },
  webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
});
switchboard.start();
const ws = bunGraphQLWebSocket(switchboard.graphqlWebSocket!);
const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: (request, bun) => ws.upgrade(request, bun) ?? switchboard.fetch(request),
  websocket: ws.websocket,
});
const base = `http://127.0.0.1:${server.port}`;

// The webhook receiver: every request it gets, with whether its signature checks out.
let secret = '';
const received: { event: string; verified: boolean }[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    const body = await request.text();
    const check = await verifyWebhook({ body, headers: request.headers, secrets: [secret] });
    received.push({ event: JSON.parse(body).event, verified: check.ok });
    return new Response(null, { status: 204 });
  },
});

const json = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${base}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...auth, ...init.headers },
  });
  return { status: response.status, body: await response.json() };
};
const graphql = (query: string) =>
  json('/graphql', {
    method: 'POST',
    headers: { accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query }),
  });

try {
  // Webhooks first, so the client created below is delivered.
  const endpoint = await json('/api/v1/webhook-endpoints', {
    method: 'POST',
    body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hooks`, eventTypes: ['client.created'] }),
  });
  secret = endpoint.body.secret;

  const created = await json('/api/v1/clients', {
    method: 'POST',
    body: JSON.stringify({ name: 'Bun Client', email: 'bun@example.com' }),
  });
  const read = await json(`/api/v1/clients/${created.body.id}`);
  const list = await json('/api/v1/clients');
  const query = await graphql('{ clients(limit: 10) { email } }');

  // A subscription over Bun's client WebSocket, speaking graphql-transport-ws by hand.
  const socket = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  const frames: { type: string; id?: string; payload?: unknown }[] = [];
  let closeCode: number | undefined;
  socket.onmessage = (event) => frames.push(JSON.parse(String(event.data)));
  socket.onclose = (event) => {
    closeCode = event.code;
  };
  await until('the socket to open', () => socket.readyState === WebSocket.OPEN);
  socket.send(JSON.stringify({ type: 'connection_init', payload: auth }));
  await until('connection_ack', () => frames.find((f) => f.type === 'connection_ack'));
  const subscription = 'subscription { onNewMessage(chatbotId: "bun-bot") { content visitor_id } }';
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: subscription } }));
  await until('the subscriber', () => switchboard.graphqlWebSocket!.subscriptions().subscribers === 1);
  const mutation = await graphql(
    'mutation { sendMessage(input: { chatbotId: "bun-bot", visitorId: "v1", content: "hi from Bun" }) { content } }',
  );
  const next = await until('the subscription event', () => frames.find((f) => f.type === 'next'));
  socket.send(JSON.stringify({ id: '1', type: 'complete' }));
  await until(
    'the subscription to end',
    () => switchboard.graphqlWebSocket!.subscriptions().subscribers === 0,
  );
  socket.close(1000, 'done');
  await until('the socket to close', () => closeCode);
  await until('the server to let go of the socket', () => switchboard.graphqlWebSocket!.sockets() === 0);

  // A WebSocket handshake that offers no graphql-transport-ws sub-protocol is refused before the upgrade.
  const refused = await fetch(`${base}/graphql`, {
    headers: {
      upgrade: 'websocket',
      connection: 'Upgrade',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'sec-websocket-version': '13',
      'sec-websocket-protocol': 'graphql-ws',
    },
  });
  await refused.body?.cancel();

  // OAuth: discovery, then a client-credentials token used on REST.
  const discovery = await json('/.well-known/oauth-authorization-server');
  const machine = await switchboard.oauth!.registerClient({
    name: 'Bun machine',
    type: 'confidential',
    redirectUris: [],
    scopes: ['crm.clients.read'],
    grantTypes: ['client_credentials'],
  });
  const tokenResponse = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${btoa(`${machine.client.id}:${machine.secret}`)}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'crm.clients.read' }),
  });
  const token = await tokenResponse.json();
  const withToken = await fetch(`${base}/api/v1/clients`, {
    headers: { authorization: `Bearer ${token.access_token}` },
  });
  await withToken.body?.cancel();

  // Webhook signatures with Web Crypto on Bun, and the delivery of the client created above.
  const hookSecret = generateWebhookSecret();
  const body = JSON.stringify({ event: 'smoke.test', data: {} });
  const headers = await signWebhook({
    body,
    secrets: [hookSecret],
    eventId: 'evt_bun',
    timestamp: Date.now() / 1000,
  });
  const verified = await verifyWebhook({ body, headers, secrets: [hookSecret] });
  const tampered = await verifyWebhook({ body: `${body} `, headers, secrets: [hookSecret] });
  await until('the webhook delivery', () => received.length > 0);

  console.log(
    JSON.stringify({
      rest: {
        created: created.status,
        read: { status: read.status, email: read.body.email },
        list: { status: list.status, emails: list.body.items.map((c: { email: string }) => c.email) },
      },
      graphql: { query: query.body, mutation: mutation.body },
      subscription: { next, closeCode },
      withoutSubProtocol: refused.status,
      oauth: {
        discovery: {
          status: discovery.status,
          tokenEndpoint: new URL(discovery.body.token_endpoint).pathname,
          clientCredentials: discovery.body.grant_types_supported.includes('client_credentials'),
        },
        token: { status: tokenResponse.status, type: token.token_type, scope: token.scope },
        restWithToken: withToken.status,
      },
      webhooks: {
        endpoint: endpoint.status,
        signed: verified.ok,
        tampered: tampered.ok ? 'accepted' : tampered.reason,
        delivered: received,
      },
    }),
  );
} finally {
  await server.stop(true);
  await receiver.stop(true);
  await switchboard.close();
}

// The runtime smoke suite's checks, shared by every runtime: Node (node-smoke.mjs), Deno
// (test/deno/matrix-smoke.ts) and Bun (test/bun/smoke.ts) run them in the runtime's own process; for
// Cloudflare's workerd (test/cloudflare/workerd.test.ts) the test's Node process runs them against the
// Worker. Given a switchboard served at `base` with the admin `key`, and a webhook receiver collecting
// into `hooks`, they call it over real HTTP (the admin API included, so nothing needs the switchboard
// in-process) and a subscription transport, and answer their findings; test/runtimes/smoke-findings.ts
// says what every runtime must answer. Plain JavaScript, so the lowest Node runs it without a loader.
//
// Webhooks go out however the host drives them: a server's timers (`switchboard.start()`), or in a Worker,
// under `waitUntil` after each write; the checks only wait for them.
import { request } from 'node:http';
import { verifyWebhook } from '../../dist/webhooks/index.js';
import { subscribeOverSse, subscribeOverWebSocket, until } from './subscription-clients.mjs';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param {{ base: string, key: string, receiverUrl: string, hooks: { headers: any, body: string }[],
 *   runtime: string, transport?: 'websocket' | 'sse', WebSocket?: any, graphqlWebSocket?: any }} options
 */
export async function smokeChecks(options) {
  const { base, key, receiverUrl, hooks, runtime, transport = 'websocket' } = options;
  const json = async (path, init = {}) => {
    const response = await fetch(`${base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
    });
    return { status: response.status, body: await response.json() };
  };
  const graphql = (query) =>
    json('/graphql', {
      method: 'POST',
      headers: { accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query }),
    });

  // Webhooks first, through the admin API, so that the clients created below are delivered.
  const endpoint = await json('/api/v1/webhook-endpoints', {
    method: 'POST',
    body: JSON.stringify({ url: receiverUrl, eventTypes: ['client.*'] }),
  });
  // The same receiver again, signed with the deployment's Ed25519 key (Standard Webhooks v1a).
  const ed25519Endpoint = await json('/api/v1/webhook-endpoints', {
    method: 'POST',
    body: JSON.stringify({ url: receiverUrl, eventTypes: ['client.*'], signature: 'ed25519' }),
  });

  // REST: create, read, list.
  const email = `${runtime}@example.com`;
  const created = await json('/api/v1/clients', {
    method: 'POST',
    body: JSON.stringify({ name: `${runtime} client`, email }),
  });
  const read = await json(`/api/v1/clients/${created.body.id}`);
  const list = await json('/api/v1/clients');

  // GraphQL: a query and a mutation.
  const query = await graphql('{ clients(limit: 10) { email } }');
  const createClient = await graphql(
    'mutation { createClient(input: { name: "Second", email: "second@example.com" }) { email } }',
  );

  const subscription = await subscriptionChecks({ ...options, transport, json, graphql });
  const handshakeWithoutSubProtocol = (await handshake(`${base}/graphql`, 'graphql-ws')).status;
  const oauth = await oauthChecks({ base, json });

  // Webhooks: both creates arrive at each endpoint, signed; the same delivery with its body changed is
  // refused. The ed25519 ones verify with the key set the server publishes.
  await until('the webhook deliveries', () => hooks.length >= 4, { ms: 15_000 });
  const headerOf = (hook, name) =>
    typeof hook.headers.get === 'function' ? hook.headers.get(name) : hook.headers[name];
  const signedV1a = (hook) => (headerOf(hook, 'webhook-signature') ?? '').startsWith('v1a,');
  const hmacHooks = hooks.filter((hook) => !signedV1a(hook));
  const v1aHooks = hooks.filter(signedV1a);
  const verify = (hook, body = hook.body) =>
    verifyWebhook({ body, headers: hook.headers, secrets: [endpoint.body.secret] });
  const delivered = await Promise.all(
    hmacHooks.map(async (hook) => ({
      event: JSON.parse(hook.body).event,
      verified: (await verify(hook)).ok,
    })),
  );
  const tampered = await verify(hmacHooks[0], `${hmacHooks[0].body} `);
  const keySet = await (await fetch(`${base}/.well-known/webhook-keys`)).json();
  const verifyV1a = (hook, body = hook.body) =>
    verifyWebhook({ body, headers: hook.headers, publicKeys: keySet });
  const deliveredV1a = await Promise.all(
    v1aHooks.map(async (hook) => ({
      event: JSON.parse(hook.body).event,
      verified: (await verifyV1a(hook)).ok,
    })),
  );
  const tamperedV1a = await verifyV1a(v1aHooks[0], `${v1aHooks[0].body} `);

  return {
    rest: {
      created: created.status,
      read: { status: read.status, email: read.body.email },
      list: { status: list.status, emails: list.body.items.map((c) => c.email) },
    },
    graphql: { query, createClient },
    subscription,
    handshakeWithoutSubProtocol,
    oauth,
    webhooks: {
      endpoint: endpoint.status,
      delivered,
      tampered: tampered.ok ? 'accepted' : tampered.reason,
      ed25519: {
        endpoint: ed25519Endpoint.status,
        keys: keySet.keys.length,
        delivered: deliveredV1a,
        tampered: tamperedV1a.ok ? 'accepted' : tamperedV1a.reason,
      },
    },
  };
}

/**
 * A subscription receives a message posted over REST after it started, then one sent by a GraphQL
 * mutation, and ends.
 */
async function subscriptionChecks({
  base,
  key,
  runtime,
  transport,
  WebSocket,
  graphqlWebSocket,
  json,
  graphql,
}) {
  const chatbotId = `bot-${runtime}`;
  const query = `subscription { onNewMessage(chatbotId: "${chatbotId}") { content visitor_id } }`;
  const subscription =
    transport === 'sse'
      ? subscribeOverSse({ base, key, query })
      : await subscribeOverWebSocket({ base, key, query, WebSocket, graphqlWebSocket });
  // Nothing says when the subscription listens: post until a message comes through.
  const posted = [];
  const fromRest = await until(
    'the first message',
    async () => {
      const [first] = subscription.results();
      if (first) return first;
      const { status } = await json(`/api/v1/chatbots/${chatbotId}/messages`, {
        method: 'POST',
        body: JSON.stringify({ visitorId: 'v1', content: `hello from ${runtime}` }),
      });
      posted.push(status);
      await pause(100);
      return undefined;
    },
    { detail: subscription.seen },
  );
  const content = `hi from ${runtime}`;
  const sendMessage = await graphql(
    `mutation { sendMessage(input: { chatbotId: "${chatbotId}", visitorId: "v2", content: "${content}" }) { content } }`,
  );
  const fromGraphQL = await until(
    'the message sent over GraphQL',
    () => subscription.results().find((r) => r.data?.onNewMessage?.content === content),
    { detail: subscription.seen },
  );
  const ended = await subscription.end();
  return {
    transport,
    fromRest,
    messagesPosted: posted.length > 0 && posted.every((status) => status === 201),
    sendMessage,
    fromGraphQL,
    ...ended,
  };
}

/** OAuth: discovery, a machine client registered through the admin API, and its token on REST. */
async function oauthChecks({ base, json }) {
  const discovery = await json('/.well-known/oauth-authorization-server');
  const registered = await json('/oauth/clients', {
    method: 'POST',
    body: JSON.stringify({
      name: 'Smoke machine',
      type: 'confidential',
      scopes: ['crm.clients.read'],
      grantTypes: ['client_credentials'],
    }),
  });
  const tokenResponse = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${btoa(`${registered.body.id}:${registered.body.secret}`)}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'crm.clients.read' }),
  });
  const token = await tokenResponse.json();
  const withToken = (init = {}) =>
    fetch(`${base}/api/v1/clients`, {
      ...init,
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
    }).then(async (response) => {
      await response.body?.cancel();
      return response.status;
    });
  return {
    discovery: {
      status: discovery.status,
      tokenEndpoint: new URL(discovery.body.token_endpoint).pathname,
      clientCredentials: discovery.body.grant_types_supported.includes('client_credentials'),
    },
    registered: registered.status,
    token: { status: tokenResponse.status, type: token.token_type, scope: token.scope },
    readWithToken: await withToken(),
    // The token's scope reads only.
    writeWithToken: await withToken({
      method: 'POST',
      body: JSON.stringify({ name: 'Nope', email: 'nope@example.com' }),
    }),
  };
}

/**
 * A WebSocket handshake offering only `protocol`: its status (101 if the server upgrades), content
 * type and body. Over node:http, which every runtime here has: fetch on Node refuses to send an
 * `upgrade` header.
 */
export function handshake(url, protocol) {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: {
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
        'sec-websocket-protocol': protocol,
      },
    });
    req.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode, type: response.headers['content-type'], body }),
      );
    });
    req.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

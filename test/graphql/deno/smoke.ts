// Runs on Deno (not Node), straight from the TypeScript sources: serves GraphQL over HTTP and WebSocket
// with Deno.serve and Deno.upgradeWebSocket, then talks to it with a real graphql-ws client.
// Started by test/graphql/deno.test.ts.
import { createClient } from 'graphql-ws';
import { acceptWebSocket } from '../../../src/graphql/index.js';
import { createMemoryEventBus, createSwitchboard, type EventBus, trustEveryone } from '../../../src/index.js';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen?: (addr: { port: number }) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
  upgradeWebSocket(
    request: Request,
    options: { protocol?: string; idleTimeout?: number },
  ): { socket: WebSocket; response: Response };
};

// The in-memory bus, plus a signal once the subscription listens, so the test publishes only then.
const inner = createMemoryEventBus();
let listening!: () => void;
const subscribed = new Promise<void>((resolve) => {
  listening = resolve;
});
const bus: EventBus = {
  publish: (event) => inner.publish(event),
  subscribe(listener, options) {
    const stop = inner.subscribe(listener, options);
    listening();
    return stop;
  },
};
const switchboard = createSwitchboard({ authenticate: trustEveryone, bus });
switchboard.start();
let port = 0;
const server = Deno.serve(
  {
    port: 0,
    hostname: '127.0.0.1',
    onListen: (addr) => {
      port = addr.port;
    },
  },
  (request) =>
    request.headers.get('upgrade') === 'websocket'
      ? acceptWebSocket(switchboard.graphqlWebSocket!, request, (protocol) =>
          Deno.upgradeWebSocket(request, { protocol, idleTimeout: 12 }),
        )
      : switchboard.fetch(request),
);

const client = createClient({ url: `ws://127.0.0.1:${port}/graphql`, retryAttempts: 0, lazy: false });
const received = new Promise<unknown>((resolve, reject) => {
  client.subscribe(
    { query: 'subscription { onNewMessage(chatbotId: "deno-bot") { content visitor_id } }' },
    { next: resolve, error: reject, complete: () => {} },
  );
});
await subscribed;
const sent = await fetch(`http://127.0.0.1:${port}/graphql`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    query:
      'mutation { sendMessage(input: { chatbotId: "deno-bot", visitorId: "v", content: "hi from Deno" }) { id } }',
  }),
});
await sent.body?.cancel();
const message = await received;
const query = await fetch(`http://127.0.0.1:${port}/graphql`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
  body: JSON.stringify({ query: '{ messages(chatbotId: "deno-bot", limit: 1) { content } }' }),
});
console.log(
  JSON.stringify({ http: { status: query.status, body: await query.json() }, subscription: message }),
);
await client.dispose();
await server.shutdown();
await switchboard.close();

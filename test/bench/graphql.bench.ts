/**
 * The GraphQL handler vs graphql-yoga: the same schema object, resolvers, data and per-request context
 * (so the same batched order loading), measured in the same run, in process and over loopback HTTP.
 * Run with `npx vitest bench --run test/bench/graphql.bench.ts`; the summary vitest prints under each
 * group is the ratio ("x times faster than"), and `hz` is requests per second.
 */
import { createYoga } from 'graphql-yoga';
import { afterAll, bench, describe } from 'vitest';
import { createMemoryEventBus } from '../../src/core/event-bus.js';
import { silentLogger } from '../../src/core/runtime.js';
import { createContext } from '../../src/graphql/context.js';
import { createGraphQLHandler, createSchema, DEFAULT_LIMITS } from '../../src/graphql/index.js';
import { createDomain, createRuntime, trustEveryone } from '../../src/index.js';
import { serve } from '../../src/node/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { EVERY_SCOPE } from '../support/scopes.js';

const storage = createMemoryStorage();
const runtime = createRuntime({ storage });
const domain = createDomain(runtime);
const bus = createMemoryEventBus();
for (let i = 0; i < 50; i++) {
  const client = await domain.clients.create({ name: `Client ${i}`, email: `c${i}@example.com` });
  for (let j = 0; j < 3; j++)
    await domain.orders.create({ clientId: client.id, total: `${j + 1}0.00`, currency: 'EUR' });
}

const schema = createSchema();
const switchboard = createGraphQLHandler(runtime, { domain, bus, schema, authenticate: trustEveryone });
const yoga = createYoga({
  schema,
  graphiql: false,
  logging: false,
  maskedErrors: true,
  context: () =>
    createContext({
      principal: { kind: 'service', subject: 'bench', scopes: EVERY_SCOPE },
      domain,
      bus,
      limits: DEFAULT_LIMITS,
      logger: silentLogger,
    }),
});

// Long enough runs that other work on a shared machine averages out.
const options = { time: 3_000, warmupTime: 1_000 };

const QUERY = '{ clients(limit: 20) { id name email orders { id status } } }';
const body = JSON.stringify({ query: QUERY });
const init = {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body,
};

async function check(response: Response): Promise<void> {
  const text = await response.text();
  if (response.status !== 200 || !text.includes('"orders"') || text.includes('"errors"'))
    throw new Error(`unexpected ${response.status}: ${text.slice(0, 200)}`);
}

// Both handlers must give the same answer before they are timed.
const [a, b] = await Promise.all([
  switchboard(new Request('http://localhost/graphql', init)).then((r) => r.json()),
  Promise.resolve(yoga.fetch(new Request('http://localhost/graphql', init))).then((r) => r.json()),
]);
if (JSON.stringify(a) !== JSON.stringify(b))
  throw new Error(`Switchboard and yoga disagree: ${JSON.stringify(b).slice(0, 400)}`);

const servers = await Promise.all([
  serve({ fetch: switchboard, port: 0, shutdownSignals: [] }),
  serve({ fetch: async (request) => yoga.fetch(request), port: 0, shutdownSignals: [] }),
]);
afterAll(() => Promise.all(servers.map((s) => s.close())));

describe('clients(limit: 20) with nested orders, in process', () => {
  bench(
    'switchboard',
    async () => {
      await check(await switchboard(new Request('http://localhost/graphql', init)));
    },
    options,
  );
  bench(
    'graphql-yoga',
    async () => {
      await check(await yoga.fetch(new Request('http://localhost/graphql', init)));
    },
    options,
  );
});

describe('clients(limit: 20) with nested orders, over loopback HTTP', () => {
  bench(
    'switchboard',
    async () => {
      await check(await fetch(`${servers[0]!.url}/graphql`, init));
    },
    options,
  );
  bench(
    'graphql-yoga',
    async () => {
      await check(await fetch(`${servers[1]!.url}/graphql`, init));
    },
    options,
  );
});

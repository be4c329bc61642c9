/**
 * graphql-yoga on node:http with Switchboard's schema (`createSchema()`, the same resolvers and
 * batched order loading) over a domain seeded like the Switchboard server. The context does the same
 * credential work Switchboard's guard does: SHA-256 of the bearer key, looked up among stored hashes.
 * Switchboard's own schema also carries the webhook admin fields; the benchmarked query touches none.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLError } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { createContext } from '../../../src/graphql/context.js';
import { createSchema, DEFAULT_LIMITS } from '../../../src/graphql/index.js';
import {
  createDomain,
  createMemoryEventBus,
  createRuntime,
  type Principal,
  silentLogger,
} from '../../../src/index.js';
import { createMemoryStorage } from '../../../src/storage/memory/index.js';
import { EVERY_SCOPE } from '../../support/scopes.js';
import { announce, BENCH_KEY, seedBenchData } from './fixture.js';

const domain = createDomain(createRuntime({ storage: createMemoryStorage() }));
await seedBenchData(domain);
const bus = createMemoryEventBus();

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const admin: Principal = { kind: 'service', subject: 'key_admin', scopes: EVERY_SCOPE };
const keys = new Map([[sha256(BENCH_KEY), admin]]);

const yoga = createYoga({
  schema: createSchema(),
  graphiql: false,
  landingPage: false,
  logging: false,
  maskedErrors: true,
  context: ({ request }) => {
    const header = request.headers.get('authorization') ?? '';
    const principal = header.startsWith('Bearer ') ? keys.get(sha256(header.slice(7))) : undefined;
    if (!principal) {
      throw new GraphQLError('The API key is unknown.', { extensions: { http: { status: 401 } } });
    }
    return createContext({ principal, domain, bus, limits: DEFAULT_LIMITS, logger: silentLogger, request });
  },
});

const server = createServer(yoga);
server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));

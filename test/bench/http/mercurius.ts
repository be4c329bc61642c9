/**
 * Mercurius on Fastify 5 with graphql-jit (`jit: 1`: every query compiled after its first run) and
 * Switchboard's schema (`createSchema()`, the same resolvers and batched order loading) over a domain
 * seeded like the Switchboard server, as yoga.ts sets graphql-yoga up. The same credential work as
 * Switchboard's guard before the operation: SHA-256 of the bearer key, looked up among stored hashes.
 */
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import mercurius from 'mercurius';
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

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

const app = Fastify({ logger: false });
app.decorateRequest('principal', undefined);
app.addHook('preHandler', async (request, reply) => {
  const header = request.headers.authorization ?? '';
  request.principal = header.startsWith('Bearer ') ? keys.get(sha256(header.slice(7))) : undefined;
  if (!request.principal) {
    return reply
      .code(401)
      .header('www-authenticate', 'Bearer realm="bench"')
      .send({
        errors: [{ message: 'The API key is unknown.' }],
      });
  }
});
await app.register(mercurius, {
  schema: createSchema(),
  jit: 1,
  graphiql: false,
  context: (request) =>
    createContext({
      principal: request.principal!,
      domain,
      bus,
      limits: DEFAULT_LIMITS,
      logger: silentLogger,
    }),
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
announce(Number(new URL(address).port));

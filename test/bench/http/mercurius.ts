/**
 * Mercurius on Fastify 5 with graphql-jit (`jit: 1`: every query compiled after its first run) and
 * Switchboard's schema (`createSchema()`, the same resolvers and batched order loading) over a domain
 * seeded like the Switchboard server, as yoga.ts sets graphql-yoga up. The same credential work as
 * Switchboard's guard before the operation: SHA-256 of the bearer key, looked up among stored hashes.
 */
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { createSchema } from '../../../src/graphql/index.js';
import type { Principal } from '../../../src/index.js';
import { announce } from './fixture.js';
import { contextFor, principalOf } from './graphql-peer.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

const app = Fastify({ logger: false });
app.decorateRequest('principal', undefined);
app.addHook('preHandler', async (request, reply) => {
  request.principal = principalOf(request.headers.authorization);
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
  // The key was looked up once, before the operation.
  context: (request) => contextFor(request.principal!),
});

const address = await app.listen({ port: 0, host: '127.0.0.1' });
announce(Number(new URL(address).port));

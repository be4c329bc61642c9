/**
 * graphql-yoga on node:http with Switchboard's schema (`createSchema()`, the same resolvers and
 * batched order loading) over a domain seeded like the Switchboard server. The context does the same
 * credential work Switchboard's guard does: SHA-256 of the bearer key, looked up among stored hashes.
 * Switchboard's own schema also carries the webhook admin fields; the benchmarked query touches none.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLError } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { createSchema } from '../../../src/graphql/index.js';
import { announce } from './fixture.js';
import { contextFor, principalOf } from './graphql-peer.js';

const yoga = createYoga({
  schema: createSchema(),
  graphiql: false,
  landingPage: false,
  logging: false,
  maskedErrors: true,
  context: ({ request }) => {
    const principal = principalOf(request.headers.get('authorization') ?? undefined);
    if (!principal) {
      throw new GraphQLError('The API key is unknown.', { extensions: { http: { status: 401 } } });
    }
    return contextFor(principal, request);
  },
});

const server = createServer(yoga);
server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));

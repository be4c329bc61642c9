/**
 * The three benchmarked REST routes on Fastify 5 with its defaults, doing the work Hono's peer
 * (hono.ts) and Switchboard's routes do: SHA-256 of the bearer key looked up among stored hashes, a
 * scope check, zod-validated query and body, records in a Map seeded with Switchboard's own clients
 * (BENCH_CLIENTS), JSON with ETag, Cache-Control, Vary, Link and total, 201 + Location, problem+json.
 * With DATABASE_URL, GET by id reads the record from Switchboard's table on PostgreSQL instead (one
 * prepared SELECT through a `pg` pool of Switchboard's size): the fastest peer's read on the same database.
 * With BENCH_PEER_LIMITS=1, @fastify/rate-limit also budgets every request per caller (its bearer key),
 * with a budget no run reaches and its three RateLimit headers on every answer: the budgets Switchboard
 * keeps on by default, as a Fastify user would add them.
 */
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { textTag } from '../../../src/http/conditional.js';
import { linkHeader } from '../../../src/http/pagination.js';
import { announce } from './fixture.js';
import { postgresClients } from './postgres-read.js';
import {
  clients,
  createClient,
  createInput,
  emails,
  FRESH,
  ordered,
  pageQuery,
  problemBody,
  scopesOf,
} from './rest-peer.js';

/** RFC 9457 problem details, shaped like Switchboard's. */
function problem(reply: FastifyReply, status: number, code: string, detail: string): FastifyReply {
  return reply
    .code(status)
    .type('application/problem+json')
    .send(problemBody(status, code, detail));
}

declare module 'fastify' {
  interface FastifyRequest {
    scopes: ReadonlySet<string> | undefined;
  }
}

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.decorateRequest('scopes', undefined);

app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
  const scopes = scopesOf(request.headers.authorization);
  if (!scopes) {
    reply.header('www-authenticate', 'Bearer realm="bench"');
    return problem(reply, 401, 'unauthorized', 'The API key is unknown.');
  }
  request.scopes = scopes;
});

if (process.env.BENCH_PEER_LIMITS === '1') {
  // After the key is checked (preHandler), per caller, like Switchboard's budgets.
  await app.register(rateLimit, {
    hook: 'preHandler',
    max: 1_000_000_000_000,
    timeWindow: 60_000,
    keyGenerator: (request) => request.headers.authorization ?? request.ip,
  });
}

/** A 403 problem unless the caller's key holds `scope`. */
const missingScope = (request: FastifyRequest, reply: FastifyReply, scope: string) =>
  request.scopes?.has(scope) ? undefined : problem(reply, 403, 'forbidden', `Missing scope ${scope}.`);

const stored = process.env.DATABASE_URL ? postgresClients(process.env.DATABASE_URL) : undefined;

app.get<{ Params: { id: string } }>('/api/v1/clients/:id', async (request, reply) => {
  const refused = missingScope(request, reply, 'crm.clients.read');
  if (refused) return refused;
  const client = stored ? await stored.get(request.params.id) : clients.get(request.params.id);
  if (!client) return problem(reply, 404, 'not_found', `No client with id "${request.params.id}".`);
  return reply.headers({ etag: `"${client.version}"`, ...FRESH }).send(client);
});

app.get('/api/v1/clients', async (request, reply) => {
  const refused = missingScope(request, reply, 'crm.clients.read');
  if (refused) return refused;
  const query = pageQuery.safeParse(request.query);
  if (!query.success) return problem(reply, 400, 'validation_failed', 'The query is not valid.');
  const { page, limit } = query.data;
  const items = ordered.slice((page - 1) * limit, page * limit);
  const body = JSON.stringify({ items, page, limit, total: ordered.length });
  const url = new URL(request.url, `http://${request.headers.host}`);
  return reply
    .headers({
      'content-type': 'application/json; charset=utf-8',
      etag: textTag(body),
      link: linkHeader(url, query.data, ordered.length),
      ...FRESH,
    })
    .send(body);
});

app.post('/api/v1/clients', async (request, reply) => {
  const refused = missingScope(request, reply, 'crm.clients.write');
  if (refused) return refused;
  const input = createInput.safeParse(request.body);
  if (!input.success) return problem(reply, 422, 'validation_failed', 'The input is not valid.');
  if (emails.has(input.data.email)) return problem(reply, 409, 'conflict', 'The e-mail is already used.');
  const client = createClient(input.data);
  return reply
    .code(201)
    .headers({ etag: '"1"', location: `/api/v1/clients/${client.id}` })
    .send(client);
});

app.setNotFoundHandler((request, reply) =>
  problem(reply, 404, 'not_found', `Nothing is served at ${request.url}.`),
);

const address = await app.listen({ port: 0, host: '127.0.0.1' });
announce(Number(new URL(address).port));

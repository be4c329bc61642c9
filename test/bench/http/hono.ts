/**
 * The three benchmarked REST routes on Hono (`@hono/node-server` with its defaults), doing the work
 * Switchboard's routes do: SHA-256 of the bearer key looked up among stored hashes, a scope check,
 * zod-validated query and body, records in a Map seeded with Switchboard's own clients (BENCH_CLIENTS),
 * JSON with ETag, Cache-Control, Vary, Link and total, 201 + Location, problem+json errors.
 */
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { textTag } from '../../../src/http/conditional.js';
import { linkHeader } from '../../../src/http/pagination.js';
import { announce } from './fixture.js';
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

type Env = { Variables: { scopes: ReadonlySet<string> } };

type ProblemStatus = 400 | 401 | 403 | 404 | 409 | 415 | 422;

/** RFC 9457 problem details, shaped like Switchboard's. */
function problem(c: Context, status: ProblemStatus, code: string, detail: string): Response {
  return c.body(problemBody(status, code, detail), status, { 'content-type': 'application/problem+json' });
}

/** A 403 problem unless the caller's key holds `scope`. */
function missingScope(c: Context<Env>, scope: string): Response | undefined {
  return c.var.scopes.has(scope) ? undefined : problem(c, 403, 'forbidden', `Missing scope ${scope}.`);
}

const app = new Hono<Env>().basePath('/api/v1');

app.use(async (c, next) => {
  const scopes = scopesOf(c.req.header('authorization'));
  if (!scopes) {
    c.header('www-authenticate', 'Bearer realm="bench"');
    return problem(c, 401, 'unauthorized', 'The API key is unknown.');
  }
  c.set('scopes', scopes);
  await next();
});

app.get('/clients/:id', (c) => {
  const refused = missingScope(c, 'crm.clients.read');
  if (refused) return refused;
  const client = clients.get(c.req.param('id'));
  if (!client) return problem(c, 404, 'not_found', `No client with id "${c.req.param('id')}".`);
  return c.json(client, 200, { etag: `"${client.version}"`, ...FRESH });
});

app.get('/clients', (c) => {
  const refused = missingScope(c, 'crm.clients.read');
  if (refused) return refused;
  const query = pageQuery.safeParse(c.req.query());
  if (!query.success) return problem(c, 400, 'validation_failed', 'The query is not valid.');
  const { page, limit } = query.data;
  const items = ordered.slice((page - 1) * limit, page * limit);
  const body = JSON.stringify({ items, page, limit, total: ordered.length });
  return c.body(body, 200, {
    'content-type': 'application/json; charset=utf-8',
    etag: textTag(body),
    link: linkHeader(new URL(c.req.url), query.data, ordered.length),
    ...FRESH,
  });
});

app.post('/clients', bodyLimit({ maxSize: 1024 * 1024 }), async (c) => {
  const refused = missingScope(c, 'crm.clients.write');
  if (refused) return refused;
  if (c.req.header('content-type')?.split(';')[0]?.trim() !== 'application/json') {
    return problem(c, 415, 'unsupported_media_type', 'Send the body as application/json.');
  }
  const input = createInput.safeParse(await c.req.json().catch(() => undefined));
  if (!input.success) return problem(c, 422, 'validation_failed', 'The input is not valid.');
  if (emails.has(input.data.email)) return problem(c, 409, 'conflict', 'The e-mail is already used.');
  const client = createClient(input.data);
  return c.json(client, 201, { etag: '"1"', location: `/api/v1/clients/${client.id}` });
});

app.notFound((c) => problem(c, 404, 'not_found', `Nothing is served at ${c.req.path}.`));

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));

/**
 * Builds the OpenAPI 3.1 document from the route definitions the handlers run, so the reference can
 * never drift from behaviour. Every schema becomes a component; JSON Schema 2020-12 is OpenAPI 3.1's
 * own dialect, so zod's output is used as is.
 */
import { z } from 'zod';
import type { AnyRoute } from './route.js';
import { ProblemSchema } from './schemas.js';

/** The `info` block of the OpenAPI document; an omitted field gets a default (version: the base path's). */
export interface OpenApiInfo {
  readonly title?: string;
  readonly version?: string;
  readonly description?: string;
}

/** An OpenAPI document: plain JSON. */
export type OpenApiDocument = Record<string, unknown>;

type Json = Record<string, unknown>;

/** Routes served under a base path of their own. */
export interface RouteSet {
  readonly basePath: string;
  readonly routes: readonly AnyRoute[];
}

/** A path-level server: the path is written from the root of the host that serves the document. */
const ROOT = [{ url: '/', description: 'Served from the root of this host, not under the base path.' }];

/**
 * Builds the OpenAPI 3.1 document of a route set served under `basePath`; `deprecated` marks every
 * operation, `rateLimited` documents the 429 a spent budget answers.
 *
 * @example
 * const document = buildOpenApiDocument(routes, { basePath: '/api/v1', info: { title: 'CRM' } });
 */
export function buildOpenApiDocument(
  routes: readonly AnyRoute[],
  options: {
    basePath: string;
    info?: OpenApiInfo;
    deprecated?: boolean;
    rateLimited?: boolean;
    /** Route sets served on mounts of their own, listed here too under their full path (e.g. `/oauth/clients`). */
    elsewhere?: readonly RouteSet[];
  },
): OpenApiDocument {
  const inputs = z.registry<{ id: string }>();
  const outputs = z.registry<{ id: string }>();
  const nameOf = new Map<z.ZodType, string>();
  const register = (registry: typeof inputs, schema: z.ZodType, name: string): string => {
    const known = nameOf.get(schema);
    if (known) return known;
    // Two different schemas under one name (e.g. from two modules) must not overwrite each other.
    const taken = new Set(nameOf.values());
    let unique = name;
    for (let n = 2; taken.has(unique); n++) unique = `${name}${n}`;
    registry.add(schema, { id: unique });
    nameOf.set(schema, unique);
    return unique;
  };
  // Every route may answer 401/403 with a problem, so the component always exists.
  register(outputs, ProblemSchema, 'Problem');

  const paths: Record<string, Json> = {};
  // Routes of other mounts keep their own path from the host's root: a path-level server says so.
  const listed = [
    ...routes.map((route) => ({ key: route.path, route, servers: undefined })),
    ...(options.elsewhere ?? []).flatMap((set) =>
      set.routes.map((route) => ({ key: `${set.basePath}${route.path}`, route, servers: ROOT })),
    ),
  ];
  for (const { key, route, servers } of listed) {
    const operation: Json = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.tags ? { tags: route.tags } : {}),
      ...(options.deprecated ? { deprecated: true } : {}),
      parameters: [
        ...parametersOf(route.params, 'path'),
        ...parametersOf(route.query, 'query'),
        ...headersOf(route),
      ],
      responses: {},
    };
    if (route.scope === 'public') operation.security = [];
    else operation.security = [{ bearerAuth: route.scope ? [route.scope] : [] }];
    if (route.body) {
      const name = register(inputs, route.body.schema, route.body.name ?? `${route.operationId}Body`);
      const content: Json = {};
      for (const type of route.body.contentTypes ?? ['application/json']) {
        content[type] = { schema: { $ref: `#/components/schemas/${name}` } };
      }
      operation.requestBody = { required: true, content };
    }
    const responses = operation.responses as Json;
    for (const [status, response] of Object.entries(route.responses)) {
      const entry: Json = { description: response.description };
      if (response.schema) {
        const name = register(outputs, response.schema, response.name ?? `${route.operationId}${status}`);
        const type = Number(status) >= 400 ? 'application/problem+json' : 'application/json';
        entry.content = { [type]: { schema: { $ref: `#/components/schemas/${name}` } } };
      }
      for (const [type, description] of Object.entries(response.alternatives ?? {})) {
        entry.content = { ...(entry.content as Json), [type]: { schema: { type: 'string', description } } };
      }
      if (response.headers) {
        entry.headers = Object.fromEntries(
          Object.entries(response.headers).map(([h, d]) => [
            h,
            { description: d, schema: { type: 'string' } },
          ]),
        );
      }
      responses[status] = entry;
    }
    // Answers the pipeline gives on its own, so every status a caller can see is documented.
    if (route.scope !== 'public') {
      responses['401'] ??= problemRef('Missing or invalid credentials');
      if (route.scope) responses['403'] ??= problemRef('The credentials lack the scope');
    }
    if (route.query) responses['400'] ??= problemRef('A query parameter is not valid');
    if (route.body) {
      responses['400'] ??= problemRef('The body is not valid JSON');
      responses['413'] ??= problemRef('The body is larger than the limit');
      responses['415'] ??= problemRef('The body is not in an accepted media type');
      responses['422'] ??= problemRef('A field is not valid');
    }
    if (route.method === 'POST')
      responses['409'] ??= problemRef('A request with this Idempotency-Key is in flight');
    // A path parameter can always name nothing (or, with a `/` in it, a path nothing is served at).
    if (route.params) responses['404'] ??= problemRef('Nothing is served at this path');
    if (options.rateLimited) responses['429'] ??= RATE_LIMITED;
    paths[key] = { ...paths[key], ...(servers ? { servers } : {}), [route.method.toLowerCase()]: operation };
  }
  const uri = (id: string): string => `#/components/schemas/${id}`;
  const schemas = {
    ...clean(z.toJSONSchema(inputs, { io: 'input', uri, unrepresentable: 'any' }).schemas),
    ...clean(z.toJSONSchema(outputs, { io: 'output', uri, unrepresentable: 'any' }).schemas),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: options.info?.title ?? 'Switchboard resource interface',
      version: options.info?.version ?? options.basePath.split('/').pop() ?? '1',
      description: options.info?.description ?? 'Clients, orders and conversations over JSON and HTTP.',
    },
    servers: [{ url: options.basePath }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: `OAuth 2.0 access token or API key. Scopes: ${scopesOf(listed.map((l) => l.route)).join(', ')}.`,
        },
      },
    },
  };
}

/** The scopes the routes need: what this document's operations are checked against. */
function scopesOf(routes: readonly AnyRoute[]): string[] {
  return [...new Set(routes.flatMap(({ scope }) => (scope && scope !== 'public' ? [scope] : [])))];
}

const header = (description: string): Json => ({ description, schema: { type: 'string' } });
const RATE_LIMITED: Json = {
  ...problemRef("The caller's budget for this class of request is spent"),
  headers: {
    'Retry-After': header('Seconds until the request would be allowed'),
    'RateLimit-Policy': header('The budget: `"<class>";q=<quota>;w=<window seconds>`'),
    RateLimit: header('What is left: `"<class>";r=<remaining>;t=<seconds until full>`'),
  },
};

function problemRef(description: string): Json {
  return {
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function headersOf(route: AnyRoute): Json[] {
  const headers: Json[] = Object.entries(route.requestHeaders ?? {}).map(([name, description]) => ({
    name,
    in: 'header',
    required: false,
    description,
    schema: { type: 'string' },
  }));
  if (route.method === 'POST') {
    headers.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Makes a retried POST return the first result instead of creating another record.',
      // What `idempotencyKeyOf` accepts: 1 to 255 visible ASCII characters.
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    });
  }
  if (route.method === 'PUT' || route.method === 'PATCH' || route.method === 'DELETE') {
    headers.push({
      name: 'If-Match',
      in: 'header',
      required: false,
      description: 'Only change the record if its ETag is still this one (412 otherwise).',
      schema: { type: 'string' },
    });
  }
  if (route.method === 'GET') {
    headers.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'Answer 304 if the ETag is still this one.',
      schema: { type: 'string' },
    });
  }
  return headers;
}

/** zod puts `$schema` and a fragment `$id` on each component; neither belongs inside OpenAPI. */
function clean(schemas: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const { $schema: _schema, $id: _id, ...rest } = schema as Json;
    result[name] = rest;
  }
  return result;
}

import { type GraphQLFormattedError, getOperationAST, OperationTypeNode } from 'graphql';
import { anonymousPrincipal, type Principal } from '../core/auth.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { readJson } from '../http/body.js';
import { bearerChallenge, REALM } from '../http/challenge.js';
import { type RateLimiter, rateHeadersOf } from '../http/rate-limit.js';
import { hasQueryParam } from '../http/url.js';
import { createEngine, type Engine, type GraphQLOptions } from './engine.js';
import { createGraphiQL } from './graphiql/page.js';
import { type MediaType, namesExplicitly, negotiate } from './http/accept.js';
import { createEventStreams } from './http/event-stream.js';
import { readMultipart } from './http/multipart.js';
import { type GraphQLParams, paramsFromBody, paramsFromUrl } from './http/params.js';

/** Options of {@link createGraphQLHandler}: the shared GraphQL options, plus GraphiQL and file uploads. */
export interface GraphQLHandlerOptions extends GraphQLOptions {
  /** Serve GraphiQL to browsers on GET. Default: on when introspection is on. */
  readonly graphiql?: boolean;
  /** Accept GraphQL multipart requests (file uploads). Default true. */
  readonly uploads?: boolean;
}

const JSON_TYPES: readonly MediaType[] = ['application/graphql-response+json', 'application/json'];

/**
 * A fetch handler that serves GraphQL over HTTP (https://graphql.github.io/graphql-over-http/draft/):
 * POST with JSON or a multipart upload, GET for queries only, GraphiQL for browsers, with the limits,
 * caching, masking and authorization of this module.
 *
 * @example
 * const graphql = createGraphQLHandler({ domain, bus, authenticate });
 * Deno.serve((request) => graphql(request));
 */
export function createGraphQLHandler(
  options: GraphQLHandlerOptions,
): (request: Request) => Promise<Response> {
  const engine = createEngine(options);
  const graphiql =
    (options.graphiql ?? engine.introspection)
      ? createGraphiQL({ title: 'Switchboard GraphiQL' })
      : undefined;
  const uploads = options.uploads ?? true;
  const streams = createEventStreams(engine, options);

  return async (request) => {
    if (streams.accepts(request) && (request.method === 'GET' || request.method === 'POST')) {
      try {
        return await streams.handle(request, await authenticateOrAnonymous(engine, request));
      } catch (error) {
        return errorResponse(engine, error, 'application/json', request);
      }
    }
    const media = negotiate(request.headers.get('accept'), JSON_TYPES);
    try {
      if (request.method === 'GET' && graphiql) {
        const asset = await graphiql.asset(request);
        if (asset) return asset;
        if (wantsHtml(request)) return await graphiql.page(request);
      }
      if (request.method !== 'GET' && request.method !== 'POST')
        throw new SwitchboardError('method_not_allowed', 'Use POST, or GET for queries.');
      if (!media)
        throw new SwitchboardError(
          'bad_request',
          'Accept application/graphql-response+json or application/json.',
          {
            status: 406,
          },
        );
      const principal = await authenticateOrAnonymous(engine, request);
      const { params, close } = await readParams(request, engine, uploads);
      try {
        return await run(engine, request, params, principal, media);
      } finally {
        await close?.();
      }
    } catch (error) {
      return errorResponse(engine, error, media ?? 'application/json', request);
    }
  };
}

/**
 * A request that sends no credentials at all runs as anonymous, so schema-only operations
 * (`__typename`, introspection) work for tools and audits; any field that needs a scope then answers 401.
 * Bad credentials still fail at once.
 */
async function authenticateOrAnonymous(engine: Engine, request: Request): Promise<Principal> {
  try {
    return await engine.authenticate(request);
  } catch (error) {
    const missing = !request.headers.has('authorization') && !hasQueryParam(request.url, 'access_token');
    if (missing && isSwitchboardError(error) && error.code === 'unauthorized') return anonymousPrincipal;
    throw error;
  }
}

interface RequestParams {
  readonly params: GraphQLParams;
  /** Ends reading a multipart body whose files stream in while the operation runs. */
  readonly close?: () => Promise<void>;
}

async function readParams(request: Request, engine: Engine, uploads: boolean): Promise<RequestParams> {
  if (request.method === 'GET') return { params: paramsFromUrl(new URL(request.url)) };
  const [type, ...parameters] = (request.headers.get('content-type') ?? '').toLowerCase().split(';');
  const charset = parameters.map((p) => p.trim()).find((p) => p.startsWith('charset='));
  if (type?.trim() === 'application/json') {
    if (charset && charset !== 'charset=utf-8')
      throw new SwitchboardError('unsupported_media_type', 'Send the JSON body in UTF-8.');
    return { params: paramsFromBody(await readJson(request, engine.limits.maxBodyBytes)) };
  }
  if (uploads && type?.trim() === 'multipart/form-data') {
    const multipart = await readMultipart(request, engine.limits);
    try {
      return { params: paramsFromBody(multipart.operations), close: multipart.close };
    } catch (error) {
      await multipart.close();
      throw error;
    }
  }
  throw new SwitchboardError(
    'unsupported_media_type',
    `Send the request as application/json${uploads ? ' or multipart/form-data' : ''}.`,
  );
}

async function run(
  engine: Engine,
  request: Request,
  params: GraphQLParams,
  principal: Principal,
  media: MediaType,
): Promise<Response> {
  const prepared = engine.prepare(params.query);
  if (!prepared.ok) return resultResponse({ errors: engine.format(prepared.errors) }, media);
  const operation = getOperationAST(prepared.document, params.operationName);
  if (!operation)
    throw new SwitchboardError(
      'bad_request',
      params.operationName
        ? `The document has no operation named "${params.operationName}".`
        : 'The document has several operations: name the one to run in "operationName".',
    );
  if (operation.operation === OperationTypeNode.SUBSCRIPTION)
    throw new SwitchboardError(
      'bad_request',
      'Subscriptions are served over WebSocket (graphql-transport-ws) on this path.',
    );
  if (request.method === 'GET' && operation.operation !== OperationTypeNode.QUERY)
    throw new SwitchboardError('method_not_allowed', 'Mutations must be sent with POST.', {
      details: [{ field: 'method', code: 'post_required', message: 'Only queries may use GET.' }],
    });

  const limits = engine.rateLimit
    ? await takeBudget(engine.rateLimit, request, principal, prepared.cost(operation), media)
    : undefined;
  if (limits instanceof Response) return limits;

  const result = await engine.execute({
    prepared,
    operation,
    operationName: params.operationName,
    variables: params.variables,
    context: engine.context(principal, { request }),
  });
  const body: { data?: unknown; errors?: GraphQLFormattedError[] } = {};
  if ('data' in result) body.data = result.data;
  if (result.errors?.length) body.errors = engine.format(result.errors);
  if (body.errors?.some((e) => e.extensions?.code === 'unauthorized')) {
    // The challenge of the first field refused for want of credentials (it names the scope it needs).
    const refusal = result.errors?.find(
      (e) => isSwitchboardError(e.originalError) && e.originalError.status === 401,
    );
    const challenge = bearerChallenge(refusal?.originalError, request) ?? `Bearer realm="${REALM}"`;
    return resultResponse(body, media, 401, { 'www-authenticate': challenge, ...limits });
  }
  return resultResponse(body, media, undefined, limits);
}

/**
 * Takes an operation's cost from the caller's budget: the RateLimit fields to answer with, or the
 * refusal itself (429, the operation not run, an error with `extensions.code: "rate_limited"`).
 */
async function takeBudget(
  limiter: RateLimiter,
  request: Request,
  principal: Principal,
  cost: number,
  media: MediaType,
): Promise<Record<string, string> | Response> {
  try {
    return await limiter.take(request, principal, 'graphql', cost);
  } catch (error) {
    const headers = rateHeadersOf(error);
    if (!headers || !isSwitchboardError(error)) throw error;
    const body = { errors: [{ message: error.message, extensions: { code: 'rate_limited' } }] };
    return resultResponse(body, media, 429, {
      ...headers,
      'retry-after': String(error.retryAfter ?? 1),
    });
  }
}

/** 200, except a request error (no `data`: parse, validation, variables) under graphql-response+json. */
function resultResponse(
  body: { data?: unknown; errors?: readonly GraphQLFormattedError[] },
  media: MediaType,
  status?: number,
  extra?: Readonly<Record<string, string>>,
): Response {
  const requestError = !('data' in body);
  const code = status ?? (requestError && media === 'application/graphql-response+json' ? 400 : 200);
  // One plain header object per response; the rare extra headers are added to it, never copied.
  const headers: Record<string, string> = {
    'content-type': CONTENT_TYPES[media],
    'cache-control': 'private, no-store',
    vary: 'Accept, Authorization',
  };
  if (extra) Object.assign(headers, extra);
  return new Response(JSON.stringify(body), { status: code, headers });
}

const CONTENT_TYPES: Readonly<Record<MediaType, string>> = {
  'application/graphql-response+json': 'application/graphql-response+json; charset=utf-8',
  'application/json': 'application/json; charset=utf-8',
  'text/html': 'text/html; charset=utf-8',
};

function errorResponse(engine: Engine, error: unknown, media: MediaType, request: Request): Response {
  if (!isSwitchboardError(error)) {
    engine.logger.log('error', 'graphql request failed', {
      error: String(error),
      stack: (error as Error)?.stack,
    });
    error = new SwitchboardError('internal', 'Unexpected error.');
  }
  const known = error as SwitchboardError;
  const details = known.details.length ? { details: known.details } : {};
  const body = { errors: [{ message: known.message, extensions: { code: known.code, ...details } }] };
  // A body or parameters the server cannot understand are a 400 whatever the media type (GraphQL over
  // HTTP); only documents that parse but fail validation or coercion keep 200 under application/json.
  const status = known.status;
  const headers: Record<string, string> = {};
  if (known.code === 'method_not_allowed')
    headers.allow = known.details.some((d) => d.code === 'post_required') ? 'POST' : 'GET, POST';
  const challenge = bearerChallenge(known, request);
  if (challenge) headers['www-authenticate'] = challenge;
  // The rest of an oversized body is never read: close the connection rather than leave it unusable.
  if (known.code === 'payload_too_large') headers.connection = 'close';
  return resultResponse(body, media, status, headers);
}

function wantsHtml(request: Request): boolean {
  const accept = request.headers.get('accept');
  return (
    namesExplicitly(accept, 'text/html') && negotiate(accept, ['text/html', ...JSON_TYPES]) === 'text/html'
  );
}

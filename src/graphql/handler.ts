import { type GraphQLFormattedError, type OperationDefinitionNode, OperationTypeNode } from 'graphql';
import { anonymousPrincipal, type Principal } from '../core/auth.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { readJson } from '../http/body.js';
import { bearerChallenge, challengeOptionsOf, REALM } from '../http/challenge.js';
import { type RateHeaders, rateHeadersOf } from '../http/rate-limit.js';
import { type ConnectionInfo, type RequestContext, requestContext } from '../http/request-context.js';
import { hasQueryParam } from '../http/url.js';
import { resolveLook } from '../internal/look/index.js';
import {
  createEngine,
  type Engine,
  type GraphQLParts,
  type GraphQLRuntime,
  type GraphQLSharedConfig,
} from './engine.js';
import { createGraphiQL } from './graphiql/page.js';
import { createNegotiator, type MediaType, namesExplicitly, negotiate } from './http/accept.js';
import { createEventStreams } from './http/event-stream.js';
import { readMultipart } from './http/multipart.js';
import { type GraphQLParams, paramsFromBody, paramsFromUrl } from './http/params.js';

/** Settings of {@link createGraphQLHandler}: the shared GraphQL settings, plus GraphiQL and file uploads. */
export interface GraphQLHandlerConfig extends GraphQLSharedConfig {
  /** Serve GraphiQL to browsers on GET. Default: on when introspection is on. */
  readonly graphiql?: boolean;
  /** Accept GraphQL multipart requests (file uploads). Default true. */
  readonly uploads?: boolean;
}

/** Options of {@link createGraphQLHandler}: its settings and what the other blocks give it. */
export interface GraphQLHandlerOptions extends GraphQLHandlerConfig, GraphQLParts {}

const JSON_TYPES: readonly MediaType[] = ['application/graphql-response+json', 'application/json'];

/**
 * A fetch handler that serves GraphQL over HTTP (https://graphql.github.io/graphql-over-http/draft/):
 * POST with JSON or a multipart upload, GET for queries only, GraphiQL for browsers, with the limits,
 * caching, masking and authorization of this module. `info` gives the peer's address, for the budgets
 * of callers without credentials.
 *
 * @example
 * const graphql = createGraphQLHandler(runtime, { domain, bus, authenticate });
 * Deno.serve((request, info) => graphql(request, { clientAddress: info.remoteAddr.hostname }));
 */
export function createGraphQLHandler(
  runtime: GraphQLRuntime,
  options: GraphQLHandlerOptions,
): (request: Request, info?: ConnectionInfo) => Promise<Response> {
  const engine = createEngine(runtime, options);
  const graphiql =
    (options.graphiql ?? engine.introspection)
      ? createGraphiQL({ look: resolveLook(runtime.look) })
      : undefined;
  const uploads = options.uploads ?? true;
  const streams = createEventStreams(engine, options);
  const negotiateJson = createNegotiator(JSON_TYPES);

  return async (request, info) => {
    const context = requestContext(request, info);
    if (streams.accepts(request) && (request.method === 'GET' || request.method === 'POST')) {
      try {
        return await streams.handle(context, await authenticateOrAnonymous(engine, request));
      } catch (error) {
        return errorResponse(engine, error, 'application/json', context);
      }
    }
    const media = negotiateJson(request.headers.get('accept'));
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
        return await run(engine, context, params, principal, media);
      } finally {
        await close?.();
      }
    } catch (error) {
      return errorResponse(engine, error, media ?? 'application/json', context);
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
  const contentType = request.headers.get('content-type');
  // What nearly every client sends, taken without splitting it.
  if (contentType === 'application/json' || contentType === 'application/json; charset=utf-8')
    return { params: paramsFromBody(await readJson(request, engine.limits.maxBodyBytes)) };
  const [type, ...parameters] = (contentType ?? '').toLowerCase().split(';');
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
  context: RequestContext,
  params: GraphQLParams,
  principal: Principal,
  media: MediaType,
): Promise<Response> {
  const { request } = context;
  const admission = engine.admit(params);
  const refusal = admission.ok ? refusalOver(request, admission.operation) : undefined;
  // A refused request is charged too (its tokens), before it is answered; over budget it is a 429.
  const charge = !admission.ok ? admission.charge : refusal ? admission.refusal : admission.charge;
  const limits = engine.rateLimit
    ? await engine.rateLimit.take(context, principal, charge.cls, charge.units)
    : undefined;
  if (!admission.ok) {
    // An operation the document does not have is a bad request, whatever the media type.
    const status = admission.errors[0]?.extensions.code === 'bad_request' ? 400 : undefined;
    return resultResponse({ errors: engine.format(admission.errors) }, media, status, limits);
  }
  if (refusal) return errorResponse(engine, refusal, media, context, limits);

  const { prepared, operation } = admission;
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
    const challenge =
      bearerChallenge(refusal?.originalError, request, challengeOptionsOf(context)) ??
      `Bearer realm="${REALM}"`;
    return resultResponse(body, media, 401, { 'www-authenticate': challenge, ...limits });
  }
  return resultResponse(body, media, undefined, limits);
}

/** What plain HTTP does not run: subscriptions (they need a stream), and mutations over GET. */
function refusalOver(request: Request, operation: OperationDefinitionNode): SwitchboardError | undefined {
  if (operation.operation === OperationTypeNode.SUBSCRIPTION)
    return new SwitchboardError(
      'bad_request',
      'Subscriptions are served over WebSocket (graphql-transport-ws) on this path.',
    );
  if (request.method === 'GET' && operation.operation !== OperationTypeNode.QUERY)
    return new SwitchboardError('method_not_allowed', 'Mutations must be sent with POST.', {
      details: [{ field: 'method', code: 'post_required', message: 'Only queries may use GET.' }],
    });
  return undefined;
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

/**
 * An error as a GraphQL response; a refusal by a budget (429, the operation not run) with its
 * `Retry-After` and RateLimit fields, any other answer with the fields of the budget it was charged to.
 */
function errorResponse(
  engine: Engine,
  error: unknown,
  media: MediaType,
  context: RequestContext,
  limits?: RateHeaders,
): Response {
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
  const challenge = bearerChallenge(known, context.request, challengeOptionsOf(context));
  if (challenge) headers['www-authenticate'] = challenge;
  // The rest of an oversized body is never read: close the connection rather than leave it unusable.
  if (known.code === 'payload_too_large') headers.connection = 'close';
  Object.assign(headers, rateHeadersOf(known) ?? limits);
  if (known.retryAfter !== undefined) headers['retry-after'] = String(known.retryAfter);
  return resultResponse(body, media, status, headers);
}

function wantsHtml(request: Request): boolean {
  const accept = request.headers.get('accept');
  return (
    namesExplicitly(accept, 'text/html') && negotiate(accept, ['text/html', ...JSON_TYPES]) === 'text/html'
  );
}

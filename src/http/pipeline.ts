/**
 * What happens to every request of a handler set, in order: authenticate → scope → params → query →
 * body → idempotency → route → ETag/304 → CORS and deprecation headers. Errors become problem+json.
 * Routes answer with data ({@link Answer}); every field is added to its header record and the
 * `Response` is built once, in {@link Pipeline.finish}.
 */
import { type Authenticate, type Principal, requireScope } from '../core/auth.js';
import { isSwitchboardError, SwitchboardError } from '../core/errors.js';
import type { Clock, Logger } from '../core/runtime.js';
import type { Storage } from '../core/storage/index.js';
import { validate } from '../core/validation.js';
import { assetResponse, brandingOf, type Look, lookCsp } from '../internal/look/index.js';
import { challengeOptionsOf } from './challenge.js';
import { bodyTag, noneMatch, textTag } from './conditional.js';
import { applyCors, type CorsOptions, isPreflight, preflightResponse } from './cors.js';
import { applyDeprecation, type DeprecationNotice } from './deprecation.js';
import { idempotencyKeyOf, runIdempotent } from './idempotency.js';
import type { OpenApiDocument } from './openapi.js';
import { problemOf, routeNotFound } from './problems.js';
import { type RateHeaders, type RateLimiter, rateHeadersOf } from './rate-limit.js';
import { renderReferencePage } from './reference-page.js';
import { REFERENCE_SCRIPT } from './reference-script.js';
import { decodeParams, isIdParams, parseQuery, readJsonBody } from './request.js';
import type { RequestContext } from './request-context.js';
import { type Answer, isAnswer, RecordHeaders, toResponse } from './responses.js';
import type { AnyRoute, RouteContext } from './route.js';
import { queryOf } from './route-table.js';

const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** Answers depend on the caller: a shared cache must not keep them, a private one must revalidate. */
const PRIVATE = 'private, no-cache';
const anonymous: Principal = { kind: 'service', subject: 'anonymous', scopes: new Set() };

export interface PipelineOptions {
  readonly authenticate: Authenticate;
  readonly storage?: Pick<Storage, 'idempotency'>;
  readonly basePath: string;
  readonly apiVersion?: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly limits?: { readonly maxBodyBytes?: number };
  readonly cors?: CorsOptions | false;
  readonly deprecation?: DeprecationNotice;
  readonly openapi: OpenApiDocument;
  /** The reference page's look, its files served at `<basePath>/docs/<name>`. */
  readonly look: Look;
  /** Budgets per caller: reads (GET, HEAD) and writes; every answer carries the RateLimit fields. */
  readonly rateLimit?: RateLimiter;
}

/** What a route or page answers: data to finish, or a `Response` of its own (see {@link Answer}). */
export type Reply = Answer | Response;

/** What a path serves: a route definition, or one of the handler set's own pages. */
export type Served = AnyRoute | ((request: Request, params: Record<string, string>) => Reply);

export interface Pipeline {
  /** Runs what the route table found, with the raw path params it matched. */
  serve(served: Served, context: RequestContext, params: Record<string, string>): Promise<Reply>;
  /** Renders an error that escaped routing itself. */
  fail(error: unknown, request: Request): Reply;
  /** The answer when no route matched: 404, or 405 / OPTIONS / preflight when `methods` serve the path. */
  unrouted(context: RequestContext, methods: readonly string[]): Promise<Reply>;
  /** The `Response` of an answer, with every field the handler set adds: built here, once. */
  finish(request: Request, reply: Reply): Response;
  openapiJson(request: Request): Answer;
  docsPage(request: Request): Answer;
  /** The reference page's style sheet and script, by their content-hashed names (`/docs/{file}`). */
  docsFile(request: Request, params: Record<string, string>): Response;
}

export function createPipeline(options: PipelineOptions): Pipeline {
  const maxBytes = options.limits?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const openapiText = JSON.stringify(options.openapi);
  const openapiTag = textTag(openapiText);
  let docsHtml: string | undefined;

  // Each route's template under this base path, made once rather than per request.
  const templates = new Map<AnyRoute, string>();

  async function run(route: AnyRoute, at: RequestContext, raw: Record<string, string>): Promise<Reply> {
    const { request } = at;
    let template = templates.get(route);
    if (template === undefined) {
      template = `${options.basePath}${route.path}`;
      templates.set(route, template);
    }
    at.route = template;
    const { rateLimit } = options;
    // The budget the request was charged to: every answer from then on carries its fields, problems too.
    let limits: RateHeaders | undefined;
    try {
      let principal: Principal;
      try {
        principal = route.scope === 'public' ? anonymous : await options.authenticate(request);
      } catch (error) {
        // Refused credentials count against the caller's address: guessing keys is not free.
        if (rateLimit) limits = await rateLimit.take(at, anonymous, classOf(request));
        throw error;
      }
      if (rateLimit) limits = await rateLimit.take(at, principal, classOf(request));
      if (route.scope !== null && route.scope !== 'public') requireScope(principal, route.scope);
      const params = parseParamsOrNotFound(route, request, raw);
      const context = new Context(request, principal, params, options);
      if (route.query) context.query = parseQuery(route.query, queryOf(request.url));
      let bytes: Uint8Array | undefined;
      if (route.body) {
        const read = await readJsonBody(request, {
          maxBytes,
          contentTypes: route.body.contentTypes ?? ['application/json'],
        });
        context.body = validate(route.body.schema, read.value);
        bytes = read.bytes;
      }
      const key = route.method === 'POST' && options.storage ? idempotencyKeyOf(request) : null;
      const response =
        key === null || !options.storage
          ? await route.handle(context)
          : await runIdempotent({
              store: options.storage.idempotency,
              key: `rest:${encodeURIComponent(principal.subject)}:${context.url.pathname}:${key}`,
              body: bytes ?? new Uint8Array(),
              now: options.clock.now(),
              run: (idempotent) => {
                context.idempotent = idempotent;
                return route.handle(context);
              },
            });
      // Answers get their validators when finish() builds them; a route's own Response gets them here.
      const answer =
        route.method === 'GET' && !isAnswer(response) ? await cacheable(request, response) : response;
      return limits ? withRateHeaders(answer, limits) : answer;
    } catch (error) {
      const response = problem(error, request, route, at);
      const charged = rateHeadersOf(error) ?? limits;
      return charged ? withRateHeaders(response, charged) : response;
    }
  }

  /**
   * Serves what is answered without a route's definition (a handler set's own pages, a path or method
   * nothing serves), charged to the caller's address: probing paths is not free either.
   */
  async function charged(at: RequestContext, answer: () => Reply | Promise<Reply>): Promise<Reply> {
    if (!options.rateLimit) return answer();
    let limits: RateHeaders;
    try {
      limits = await options.rateLimit.take(at, anonymous, classOf(at.request));
    } catch (error) {
      const headers = rateHeadersOf(error);
      const response = problem(error, at.request);
      return headers ? withRateHeaders(response, headers) : response;
    }
    return withRateHeaders(await answer(), limits);
  }

  function problem(error: unknown, request: Request, route?: AnyRoute, at?: RequestContext): Answer {
    if (!isSwitchboardError(error)) {
      options.logger.log('error', 'unhandled error in REST route', {
        route: route ? `${route.method} ${route.path}` : undefined,
        error: String(error),
        stack: (error as Error | undefined)?.stack,
      });
    }
    const answer = problemOf(error, { request, ...(at ? { challenge: challengeOptionsOf(at) } : {}) });
    // RFC 5789 §2.2: a refused patch format names the ones that are accepted.
    if (route?.method === 'PATCH' && answer.status === 415 && route.body) {
      answer.headers['accept-patch'] = (route.body.contentTypes ?? ['application/json']).join(', ');
    }
    return answer;
  }

  return {
    serve: (served, at, params) =>
      typeof served === 'function' ? charged(at, () => served(at.request, params)) : run(served, at, params),
    fail: (error, request) => problem(error, request),
    async unrouted(at, served) {
      const { request } = at;
      const { pathname } = new URL(request.url);
      if (served.length === 0) return charged(at, () => problem(routeNotFound(pathname), request));
      const methods = new Set([...served, 'OPTIONS']);
      const allow = [...methods].join(', ');
      // Preflights and OPTIONS are answered from the route table alone, with no budget (browsers send them).
      if (isPreflight(request) && options.cors) return preflightResponse(request, options.cors, [...methods]);
      if (request.method === 'OPTIONS') {
        const headers: Record<string, string> = { allow };
        if (methods.has('PATCH')) headers['accept-patch'] = 'application/merge-patch+json, application/json';
        return { status: 204, headers, body: null };
      }
      const error = new SwitchboardError(
        'method_not_allowed',
        `${request.method} is not served at ${pathname}; use ${allow}.`,
      );
      return charged(at, () => problemOf(error, { headers: { allow } }));
    },
    finish(request, reply) {
      if (isAnswer(reply)) return finishAnswer(request, reply, options);
      const { cors, deprecation } = options;
      const response = reply;
      const result =
        cors || deprecation
          ? withHeaders(response, (answer) => {
              if (cors) applyCors(request, answer.headers, cors);
              if (deprecation) applyDeprecation(answer.headers, deprecation);
            })
          : response;
      if (request.method === 'HEAD' && result.body) {
        return new Response(null, { status: result.status, headers: result.headers });
      }
      return result;
    },
    openapiJson: () => ({
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        etag: openapiTag,
        'cache-control': 'public, max-age=300',
      },
      body: openapiText,
    }),
    docsPage() {
      const { look, basePath } = options;
      docsHtml ??= renderReferencePage(options.openapi, {
        branding: brandingOf(look, `${basePath}/docs`),
        script: `${basePath}/docs/${REFERENCE_SCRIPT.name}`,
      });
      return {
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'public, max-age=300',
          // The try-it script calls this API (connect-src); nothing inline, nothing from elsewhere.
          'content-security-policy': lookCsp(look, [
            "script-src 'self'",
            "connect-src 'self'",
            "form-action 'none'",
          ]),
          'x-content-type-options': 'nosniff',
        },
        body: docsHtml,
      };
    },
    docsFile(_request, params) {
      const file = [options.look.stylesheet, REFERENCE_SCRIPT].find((f) => f.name === params.file);
      if (!file) throw new SwitchboardError('not_found', `The reference has no file ${params.file ?? ''}.`);
      return assetResponse(file);
    },
  };
}

/** Reads (GET, HEAD) take from the `read` budget, everything else from `write`. */
function classOf(request: Request): 'read' | 'write' {
  return request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write';
}

function parseParamsOrNotFound(route: AnyRoute, request: Request, raw: Record<string, string>): unknown {
  const params = decodeParams(raw, request.url);
  if (!route.params || isIdParams(route.params)) return params;
  try {
    return validate(route.params, params);
  } catch {
    throw routeNotFound(new URL(request.url).pathname);
  }
}

/** A route's context; the URL is parsed on demand (a GET by id never needs it). */
const notIdempotent: RouteContext['idempotent'] = () => ({});

class Context implements RouteContext {
  query: unknown = {};
  body: unknown = undefined;
  idempotent: RouteContext['idempotent'] = notIdempotent;
  readonly basePath: string;
  readonly apiVersion: number;
  readonly clock: Clock;
  readonly logger: Logger;
  #url: URL | undefined;

  constructor(
    readonly request: Request,
    readonly principal: Principal,
    readonly params: unknown,
    options: PipelineOptions,
  ) {
    this.basePath = options.basePath;
    this.apiVersion = options.apiVersion ?? 1;
    this.clock = options.clock;
    this.logger = options.logger;
  }

  get url(): URL {
    this.#url ??= new URL(this.request.url);
    return this.#url;
  }
}

/**
 * Builds an answer's `Response` once, with every field the handler set adds: for a successful read its
 * validators (or 304), then CORS and deprecation. The fields go into the answer's own header record;
 * no `Headers` object is made before the `Response`.
 */
function finishAnswer(request: Request, answer: Answer, options: PipelineOptions): Response {
  const { cors, deprecation } = options;
  const read = request.method === 'GET' || request.method === 'HEAD';
  const fields = answer.headers;
  if (read && answer.status === 200 && answer.body !== null) {
    fields.etag ??= textTag(answer.body);
    fields['cache-control'] ??= PRIVATE;
    if (!fields['cache-control'].startsWith('public'))
      fields.vary = fields.vary === undefined ? 'Authorization' : `${fields.vary}, Authorization`;
    if (noneMatch(request.headers.get('if-none-match'), fields.etag)) return notModified(fields);
  }
  if (cors || deprecation) {
    const headers = new RecordHeaders(fields);
    if (cors) applyCors(request, headers, cors);
    if (deprecation) applyDeprecation(headers, deprecation);
  }
  return toResponse(answer, { head: request.method === 'HEAD' });
}

/**
 * Gives a successful GET its validators: an ETag (hashed from the body when the route set none), a
 * `Cache-Control` (private: answers depend on the caller), and 304 when `If-None-Match` matches.
 */
function cacheable(
  request: Request,
  response: Response,
  cacheControl = PRIVATE,
): Response | Promise<Response> {
  // A stream (Server-Sent Events) never ends to be hashed, and is never the same twice.
  if (response.status !== 200 || response.headers.get('content-type')?.startsWith('text/event-stream'))
    return response;
  const etag = response.headers.get('etag');
  if (etag !== null) return validators(request, response, etag, cacheControl);
  return (async () => {
    const bytes = new Uint8Array(await response.arrayBuffer());
    const tag = await bodyTag(bytes);
    const copy = new Response(bytes, { status: 200, headers: response.headers });
    copy.headers.set('etag', tag);
    return validators(request, copy, tag, cacheControl);
  })();
}

function validators(request: Request, answer: Response, etag: string, cacheControl: string): Response {
  const response = withHeaders(answer, (target) => {
    if (!target.headers.has('cache-control')) target.headers.set('cache-control', cacheControl);
    if (cacheControl.startsWith('private')) target.headers.append('vary', 'Authorization');
  });
  if (!noneMatch(request.headers.get('if-none-match'), etag)) return response;
  return notModified(Object.fromEntries(response.headers));
}

/**
 * 304 keeps the validators and what caches need of the 200 (RFC 9110 §15.4.5), and the RateLimit
 * fields of the budget the request was charged to.
 */
function notModified(headers: Readonly<Record<string, string>>): Response {
  const kept: Record<string, string> = {};
  for (const name of ['etag', 'cache-control', 'vary', 'link', 'ratelimit-policy', 'ratelimit']) {
    const value = headers[name];
    if (value !== undefined) kept[name] = value;
  }
  return new Response(null, { status: 304, headers: kept });
}

/**
 * The RateLimit fields onto an answer: into its header record, which finish() builds the `Response`
 * from; a route's own `Response` gets them on its headers.
 */
function withRateHeaders(response: Reply, limits: RateHeaders): Reply {
  if (isAnswer(response)) {
    response.headers['ratelimit-policy'] = limits['ratelimit-policy'];
    response.headers.ratelimit = limits.ratelimit;
    return response;
  }
  return withHeaders(response, (answer) => {
    answer.headers.set('ratelimit-policy', limits['ratelimit-policy']);
    answer.headers.set('ratelimit', limits.ratelimit);
  });
}

/**
 * Applies header edits to an answer. A route may return a response whose headers are immutable
 * (`Response.redirect`, a proxied `fetch`); it is copied first rather than failing.
 */
function withHeaders(response: Response, edit: (response: Response) => void): Response {
  try {
    edit(response);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    edit(copy);
    return copy;
  }
}

/**
 * Route definitions are data: method, path, scope, schemas and summary. The handler set turns them into
 * a route table AND into the OpenAPI document, so what is documented is what is served.
 */

import type { z } from 'zod';
import type { Principal, Scope } from '../core/auth.js';
import type { CreateOptions } from '../core/domain/index.js';
import type { Clock, Logger } from '../core/runtime.js';
import type { Answer } from './responses.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a route handler receives: the checked principal, and its params, query and body validated. */
export interface RouteContext<P = unknown, Q = unknown, B = unknown> {
  readonly request: Request;
  readonly url: URL;
  readonly principal: Principal;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** Where the handler set is mounted, e.g. `/api/v1`; build `Location` and links from it. */
  readonly basePath: string;
  /** The API version the handler set speaks (1 unless it was given one), e.g. to pin what it registers. */
  readonly apiVersion: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Options for the domain create a POST handler makes, given how it answers with the record: when
   * the request carries an `Idempotency-Key`, that answer is stored in the same transaction as the
   * record, so a retry after a crash always replays it. Without a key, no options.
   *
   * @example
   * const respond = (client: ResourceRecord) => created(client, `${basePath}/clients/${client.id}`);
   * return respond(await domain.resources.client!.create(body, idempotent(respond)));
   */
  idempotent<T>(respond: (record: T) => Answer | Response): CreateOptions<T>;
}

/** The request body a route accepts: its schema, media types and OpenAPI component name. */
export interface RouteBody<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  /** Media types accepted (415 otherwise). Default `application/json`. */
  readonly contentTypes?: readonly string[];
  /** Component name in the OpenAPI document; default `<operationId>Body`. */
  readonly name?: string;
}

/** One documented answer of a route, keyed by status in `responses`: its meaning, body schema and headers. */
export interface RouteResponse {
  readonly description: string;
  /** Omit for bodiless responses (204). */
  readonly schema?: z.ZodType;
  /** Component name in the OpenAPI document; default `<operationId><status>`. */
  readonly name?: string;
  /** Response headers worth documenting, name → description. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Other media types the answer comes in when the caller asks (`Accept`), e.g. `text/event-stream` → what it carries. */
  readonly alternatives?: Readonly<Record<string, string>>;
}

/**
 * One operation of the interface. `handle` returns an {@link Answer} (see `json`, `created`,
 * `noContent`, `paginated`), whose header fields reach the client with the handler set's own, or
 * throws a `SwitchboardError`, which is rendered as problem+json. A route that must answer with a Web
 * `Response` itself (a redirect, a stream) may return one: the handler set adds its fields to that
 * response's headers (to a copy when they are immutable).
 */
export interface RouteDefinition<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  readonly method: HttpMethod;
  /** Relative to the base path, OpenAPI style: `/clients/{id}`. Lowercase plural nouns, hyphens. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  /**
   * The scope a caller needs (checked with `requireScope`). `null` serves any authenticated caller;
   * `'public'` skips authentication entirely.
   */
  readonly scope: Scope | null | 'public';
  readonly params?: P;
  readonly query?: Q;
  readonly body?: RouteBody<B>;
  /** Request headers the route reads, name → description (documented as header parameters). */
  readonly requestHeaders?: Readonly<Record<string, string>>;
  readonly responses: Readonly<Record<number, RouteResponse>>;
  readonly handle: (
    context: RouteContext<z.output<P>, z.output<Q>, z.output<B>>,
  ) => Promise<Answer | Response>;
}

/** Any route, whatever its schemas: what lists of routes hold. */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list needs the widest parameter types.
export type AnyRoute = RouteDefinition<any, any, any>;

/**
 * Declares a route with its schemas inferred into the handler's context.
 *
 * @example
 * const listEndpoints = defineRoute({
 *   method: 'GET', path: '/webhook-endpoints', operationId: 'listWebhookEndpoints',
 *   summary: 'List webhook endpoints', scope: 'admin.webhooks.read', query: pageQuery(),
 *   responses: { 200: { description: 'A page of endpoints', schema: pageOf(EndpointSchema) } },
 *   handle: async ({ query }) => paginated(await store.list(query), query, ctx),
 * });
 */
export function defineRoute<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
>(route: RouteDefinition<P, Q, B>): AnyRoute {
  return route as AnyRoute;
}

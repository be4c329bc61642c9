/**
 * A span (HTTP server semantic conventions) and a duration measurement per request, for any fetch
 * handler. The route template is what the handler that served the request noted on its context
 * (`/api/v1/clients/{id}`), so spans and metrics are grouped by route, never by raw path.
 */
import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';
import { createTelemetry, failed, type Telemetry } from '../core/telemetry/index.js';
import { type ConnectionInfo, type RequestContext, requestContext } from './request-context.js';
import { pathnameOf } from './url.js';

const fromHeaders: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** Options of {@link instrumentFetch}. */
export interface InstrumentOptions {
  /** Where spans and metrics go; the global OpenTelemetry API by default. */
  readonly telemetry?: Telemetry;
  /** `switchboard.interface` when the handler notes none: `rest`, `graphql`, `oauth`, `console`… */
  readonly interface: string;
  /**
   * The route when the handler notes none (e.g. its mount path). Without either, the span and the
   * measurement have no `http.route`: the raw path never becomes a label.
   */
  readonly route?: string;
}

/**
 * Wraps a fetch handler: each request gets a server span (continuing the caller's trace when it sends
 * `traceparent`) and an `http.server.request.duration` measurement by interface, method, route and status.
 * The handler is given the request's context (a {@link ConnectionInfo} with the peer's address the
 * runtime gave): Switchboard's handlers note their route template and interface on it.
 */
export function instrumentFetch(
  handle: (request: Request, info: ConnectionInfo) => Promise<Response>,
  options: InstrumentOptions,
): (request: Request, info?: ConnectionInfo) => Promise<Response> {
  const { tracer, requestDuration, measuring } = options.telemetry ?? createTelemetry();

  async function traced(
    request: Request,
    at: RequestContext,
    span: Span,
    parent: Context,
  ): Promise<Response> {
    const started = performance.now();
    const method = request.method;
    let status = 500;
    try {
      const response = span.isRecording()
        ? await context.with(trace.setSpan(parent, span), handle, undefined, request, at)
        : await handle(request, at);
      status = response.status;
      return response;
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      const route = at.route ?? options.route;
      const attributes: Attributes = {
        'http.request.method': method,
        'http.response.status_code': status,
        'switchboard.interface': at.interface ?? options.interface,
      };
      if (route !== undefined) attributes['http.route'] = route;
      if (span.isRecording()) {
        if (route !== undefined) span.updateName(`${method} ${route}`);
        span.setAttributes(attributes);
        span.setAttribute('url.path', pathnameOf(request.url));
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
      if (measuring) requestDuration.record((performance.now() - started) / 1000, attributes);
    }
  }

  return (request, info) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers, fromHeaders);
    const span = tracer.startSpan(request.method, { kind: SpanKind.SERVER }, parent);
    // The request's one context: made here unless the adapter made it, and read back once served.
    const at = requestContext(request, info);
    // Nothing records and nothing measures (no SDK): the handler alone, not one promise more.
    if (!measuring && !span.isRecording()) return handle(request, at);
    return traced(request, at, span, parent);
  };
}

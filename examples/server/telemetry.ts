/**
 * The OpenTelemetry SDK for the example server. The library speaks only `@opentelemetry/api`; this is
 * the part a host sets up: metrics always, served as Prometheus text at `/metrics` by the server itself,
 * and, when an OTLP endpoint is configured, traces and metrics pushed there too.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { type DiagLogFunction, DiagLogLevel, diag, metrics } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { defaultResource, type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { type IMetricReader, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { type FetchHandler, type Logger, SwitchboardError } from 'switchboard-kit';
import { authErrorResponse } from 'switchboard-kit/oauth';
import type { ServerConfig } from './config.js';

/** The Prometheus text exposition format, version 0.0.4. */
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** The SDK as the example runs it. */
export interface ExampleTelemetry {
  /** `GET /metrics` answered in Prometheus text to the admin API key; every other request goes to `next`. */
  serveMetrics(next: FetchHandler, options: { readonly adminApiKey: string }): FetchHandler;
  /** Exports what is still buffered (spans, a last round of metrics) and stops the exporters. */
  shutdown(): Promise<void>;
}

/**
 * Registers the global meter provider (and, with an OTLP endpoint, the global tracer provider, the
 * AsyncLocalStorage context manager and the W3C propagator). Call it before `createSwitchboard`: the
 * library takes the global meter provider when it is created.
 */
export async function startTelemetry(
  config: Pick<ServerConfig, 'otlpEndpoint' | 'serviceName'>,
  logger: Logger,
): Promise<ExampleTelemetry> {
  // The SDK reports failures (a collector out of reach) through diag: into the log, one line each.
  const toLog =
    (level: 'warn' | 'error'): DiagLogFunction =>
    (message, ...args) =>
      logger.log(
        level,
        `opentelemetry: ${messageOf(message)}`,
        args.length ? { details: args.map(String) } : {},
      );
  const quiet: DiagLogFunction = () => {};
  diag.setLogger(
    { error: toLog('error'), warn: toLog('warn'), info: quiet, debug: quiet, verbose: quiet },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );

  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': config.serviceName }));
  // A pull reader without its own HTTP server: the example answers /metrics itself.
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const serializer = new PrometheusSerializer();
  const otlp = config.otlpEndpoint ? await startOtlp(config.otlpEndpoint, resource) : undefined;
  const readers: IMetricReader[] = otlp ? [prometheus, otlp.metricReader] : [prometheus];
  const meterProvider = new MeterProvider({ resource, readers });
  metrics.setGlobalMeterProvider(meterProvider);

  return {
    serveMetrics(next, { adminApiKey }) {
      const expected = sha256(adminApiKey);
      return async (request) => {
        // The substring test spares every other request a URL parse.
        if (
          request.method !== 'GET' ||
          !request.url.includes('/metrics') ||
          new URL(request.url).pathname !== '/metrics'
        )
          return next(request);
        const refusal = checkAdminKey(request.headers.get('authorization'), expected);
        if (refusal) return authErrorResponse(refusal, request);
        const { resourceMetrics, errors } = await prometheus.collect();
        if (errors.length)
          logger.log('warn', 'some metrics could not be collected', { errors: errors.map(String) });
        return new Response(serializer.serialize(resourceMetrics), {
          headers: { 'content-type': PROMETHEUS_TEXT, 'cache-control': 'no-store' },
        });
      };
    },
    async shutdown() {
      const results = await Promise.allSettled([meterProvider.shutdown(), otlp?.tracerProvider.shutdown()]);
      for (const result of results) {
        if (result.status === 'rejected')
          logger.log('warn', 'telemetry did not flush', { error: String(result.reason) });
      }
    },
  };
}

/**
 * Traces over OTLP/HTTP, registered globally with the AsyncLocalStorage context manager and the W3C
 * propagator, and a metric reader that pushes there every minute. Imported only when asked for: the
 * OTLP exporters take longer to load than the rest of the SDK together.
 */
async function startOtlp(
  endpoint: string,
  resource: Resource,
): Promise<{ tracerProvider: NodeTracerProvider; metricReader: IMetricReader }> {
  const [{ OTLPTraceExporter }, { OTLPMetricExporter }, { BatchSpanProcessor, NodeTracerProvider }] =
    await Promise.all([
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
      import('@opentelemetry/sdk-trace-node'),
    ]);
  const url = (path: string): string => `${endpoint.replace(/\/$/, '')}/${path}`;
  const tracerProvider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: url('v1/traces') }))],
  });
  tracerProvider.register();
  const exporter = new OTLPMetricExporter({ url: url('v1/metrics') });
  return { tracerProvider, metricReader: new PeriodicExportingMetricReader({ exporter }) };
}

/** Why `Authorization` does not carry the admin key, or undefined when it does (compared in constant time). */
function checkAdminKey(header: string | null, expected: Buffer): SwitchboardError | undefined {
  if (header === null)
    return new SwitchboardError('unauthorized', 'Send the admin API key: Authorization: Bearer <key>.');
  const key = /^Bearer +(\S+) *$/i.exec(header)?.[1];
  // Digests of equal length, so neither the key's length nor its contents show in the timing.
  if (key !== undefined && timingSafeEqual(sha256(key), expected)) return undefined;
  const message = 'The metrics are served to the admin API key only.';
  return new SwitchboardError('unauthorized', message, {
    details: [{ field: 'authorization', code: 'invalid_token', message }],
  });
}

/** The message of an error the SDK passes on as JSON (stack and all); any other text as it is. */
function messageOf(text: string): string {
  try {
    const { message } = JSON.parse(text) as { message?: unknown };
    return typeof message === 'string' ? message : text;
  } catch {
    return text;
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * OpenTelemetry through `@opentelemetry/api` only: spans and metrics go to the SDK the host registers
 * (globally, or handed in as providers) and cost next to nothing when none is registered.
 */
import {
  type Counter,
  createNoopMeter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type Tracer,
  type TracerProvider,
  trace,
  ValueType,
} from '@opentelemetry/api';

/** The instrumentation scope name every span and metric is reported under. */
export const INSTRUMENTATION_SCOPE = 'switchboard-kit';

/**
 * Where spans and metrics go. Without providers, the global ones the host registered with the SDK
 * (`sdk.start()`, `provider.register()`), or nothing at all when none is. The global meter provider
 * must be registered before the first `createTelemetry` (the API has no stand-in for it, unlike tracing).
 */
export interface TelemetryOptions {
  readonly tracerProvider?: TracerProvider;
  readonly meterProvider?: MeterProvider;
}

/** The tracer, the meter, and the instruments recorded outside one place. */
export interface Telemetry {
  readonly tracer: Tracer;
  readonly meter: Meter;
  /** False when no meter provider is registered: the hot paths then skip preparing measurements. */
  readonly measuring: boolean;
  /** `http.server.request.duration`: seconds per request, by interface, method, route and status. */
  readonly requestDuration: Histogram;
  /** `switchboard.rate_limit.refusals`: requests refused by a budget, by class. */
  readonly rateLimitRefusals: Counter;
  /** `switchboard.webhook.attempts`: delivery attempts by outcome (succeeded, retrying, dead) and endpoint. */
  readonly webhookAttempts: Counter;
  /** `switchboard.webhook.lag`: seconds from a delivery's creation (its event relayed) to its success. */
  readonly webhookLag: Histogram;
  /** `switchboard.mcp.tool.calls`: MCP tool calls by tool and outcome (ok, error with its code, refused). */
  readonly mcpToolCalls: Counter;
}

/** Creates the tracer and instruments once; components made by `createSwitchboard` share them. */
export function createTelemetry(options: TelemetryOptions = {}): Telemetry {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE);
  return {
    tracer,
    meter,
    measuring: meter !== createNoopMeter(),
    requestDuration: meter.createHistogram('http.server.request.duration', {
      description: 'Duration of HTTP server requests.',
      unit: 's',
      advice: {
        explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
      },
    }),
    rateLimitRefusals: meter.createCounter('switchboard.rate_limit.refusals', {
      description: 'Requests refused because their caller was over a budget.',
      valueType: ValueType.INT,
    }),
    webhookAttempts: meter.createCounter('switchboard.webhook.attempts', {
      description:
        'Webhook delivery attempts, by outcome: succeeded, retrying (failed, tried again later), dead.',
      valueType: ValueType.INT,
    }),
    webhookLag: meter.createHistogram('switchboard.webhook.lag', {
      description: 'Seconds from a webhook delivery being created (its event relayed) to its success.',
      unit: 's',
      advice: {
        explicitBucketBoundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600],
      },
    }),
    mcpToolCalls: meter.createCounter('switchboard.mcp.tool.calls', {
      description:
        'MCP tool calls, by tool and outcome: ok, error (a refusal by the service, with its code), refused (invalid params).',
      valueType: ValueType.INT,
    }),
  };
}

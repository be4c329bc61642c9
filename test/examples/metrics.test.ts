/**
 * The example server's telemetry over the wire. `/metrics` serves the OpenTelemetry metrics as
 * Prometheus text, to the admin API key only, under the names the OpenTelemetry Prometheus exporter
 * (0.223) gives: dots become underscores, counters end in `_total`, histograms have `_count`, `_sum` and
 * `_bucket` series, and no unit is added to a name (the request histogram is
 * `http_server_request_duration`, its unit on a `# UNIT` line). With OTEL_EXPORTER_OTLP_ENDPOINT, spans
 * and metrics go to a collector, and lines logged inside a span carry its trace id.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import parsePrometheus, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTraceIds } from '../../examples/server/trace-ids.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { type RunningExample, startExampleServer } from '../support/example-server.js';
import { until } from '../support/until.js';

const SERVICE = 'switchboard-metrics-test';

/** What the example pushed to the collector, which is also the webhook receiver. */
const posted: { path: string; body: string }[] = [];
let collector: NodeServer;
let server: RunningExample;
let auth: { authorization: string };

beforeAll(async () => {
  collector = await serve({
    port: 0,
    shutdownSignals: [],
    fetch: async (request) => {
      posted.push({ path: new URL(request.url).pathname, body: await request.text() });
      return Response.json({});
    },
  });
  server = await startExampleServer({
    POLL_INTERVAL_MS: '50',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_SERVICE_NAME: SERVICE,
    // Read by the SDK itself: spans leave every 100 ms rather than every 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  auth = { authorization: `Bearer ${/Admin API key {4}(sbk_\w+)/.exec(server.output())![1]}` };
});

afterAll(async () => {
  await server?.stop();
  await collector?.close();
});

async function scrape(): Promise<string> {
  const response = await fetch(`${server.url}/metrics`, { headers: auth });
  expect(response.status).toBe(200);
  return response.text();
}

function family(text: string, name: string): PrometheusFamily | undefined {
  return parsePrometheus(text).find((f) => f.name === name);
}

/**
 * The samples of one series. The parser folds the series of a labelled histogram into one bucket map,
 * losing each label set's count, so a `_count` series is read on its own, as the labelled lines it is.
 */
function series(text: string, name: string): readonly PrometheusSample[] {
  const lines = text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
  return parsePrometheus(`${lines.join('\n')}\n`)[0]?.metrics ?? [];
}

/** The sum of a series over the samples whose labels include `labels`. */
function sumOf(text: string, name: string, labels: Record<string, string>): number {
  return series(text, name)
    .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value))
    .reduce((sum, sample) => sum + Number(sample.value), 0);
}

describe('GET /metrics on the example server', () => {
  it('refuses a scrape without the admin API key, with a Bearer challenge', async () => {
    const bare = await fetch(`${server.url}/metrics`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toMatch(/^Bearer /);

    const wrong = await fetch(`${server.url}/metrics`, {
      headers: { authorization: 'Bearer sbk_not_the_key' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await wrong.text()).not.toContain('# TYPE');
  });

  it('serves Prometheus text format 0.0.4 that a Prometheus parser reads', async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: auth });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const families = parsePrometheus(await response.text());
    expect(families).toContainEqual(expect.objectContaining({ name: 'target_info', type: 'GAUGE' }));
    expect(families.find((f) => f.name === 'target_info')?.metrics[0]?.labels).toMatchObject({
      service_name: SERVICE,
    });
  });

  it('counts each REST and GraphQL request under its interface and route template', async () => {
    const rest = {
      http_route: '/api/v2/clients',
      http_request_method: 'GET',
      http_response_status_code: '200',
      switchboard_interface: 'rest',
    };
    const restById = { http_route: '/api/v2/clients/{id}', http_response_status_code: '404' };
    const graphql = { http_route: '/graphql', http_request_method: 'POST', switchboard_interface: 'graphql' };
    const count = 'http_server_request_duration_count';
    const before = await scrape();

    for (let i = 0; i < 2; i++) await fetch(`${server.url}/api/v2/clients?city=London`, { headers: auth });
    await fetch(`${server.url}/api/v2/clients/cli_missing`, { headers: auth });
    await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ clients(limit: 1) { name } }' }),
    });

    const after = await scrape();
    expect(family(after, 'http_server_request_duration')?.type).toBe('HISTOGRAM');
    expect(sumOf(after, count, rest) - sumOf(before, count, rest)).toBe(2);
    expect(sumOf(after, count, restById) - sumOf(before, count, restById)).toBe(1);
    expect(sumOf(after, count, graphql) - sumOf(before, count, graphql)).toBe(1);
    // A raw path is never a label.
    expect(series(after, count).map((s) => s.labels?.http_route)).not.toContain(
      '/api/v2/clients/cli_missing',
    );
  });

  it('reports the outbox backlog, pending webhooks and open subscriptions as gauges', async () => {
    const text = await scrape();
    for (const name of [
      'switchboard_outbox_backlog',
      'switchboard_webhook_pending',
      'switchboard_graphql_subscriptions',
    ]) {
      const gauge = family(text, name);
      expect(gauge?.type, name).toBe('GAUGE');
      expect(Number(gauge?.metrics[0]?.value), name).toBeGreaterThanOrEqual(0);
    }
  });

  it('counts webhook attempts by outcome in a _total counter', async () => {
    const endpoint = await fetch(`${server.url}/api/v2/webhook-endpoints`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${collector.url}/hooks`, eventTypes: ['client.created'] }),
    });
    const { id } = (await endpoint.json()) as { id: string };
    await fetch(`${server.url}/api/v2/clients`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Hedy Lamarr', email: 'hedy@example.com' }),
    });
    const succeeded = { switchboard_webhook_endpoint_id: id, switchboard_webhook_outcome: 'succeeded' };
    await until(
      async () => sumOf(await scrape(), 'switchboard_webhook_attempts_total', succeeded) === 1,
      'a successful webhook attempt in the metrics',
    );
    expect(family(await scrape(), 'switchboard_webhook_attempts_total')?.type).toBe('COUNTER');
  });
});

describe('the example server with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('pushes spans to the collector under OTEL_SERVICE_NAME', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
      },
      body: JSON.stringify({ query: 'query OneClient { clients(limit: 1) { name } }' }),
    });
    const exported = (): { path: string; body: string } | undefined =>
      posted.find(({ path, body }) => path === '/v1/traces' && body.includes(traceId));
    await until(() => exported() !== undefined, 'the span exported over OTLP');
    expect(exported()?.body).toContain(`{"key":"service.name","value":{"stringValue":"${SERVICE}"}}`);
    expect(exported()?.body).toContain('"name":"query OneClient"');
  });

  // Last: it stops the server.
  it('flushes a last round of metrics to the collector when it stops', async () => {
    expect(await server.stop()).toBe(0);
    const metrics = posted.filter(({ path }) => path === '/v1/metrics').map(({ body }) => body);
    expect(metrics.join('\n')).toContain('"name":"http.server.request.duration"');
  });
});

describe("the example's logger", () => {
  // In this process, not over the wire: which library lines run inside a span depends on timing.
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    context.disable();
  });

  it('puts the trace id and span id of the active span on each line logged inside it', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = withTraceIds({
      log: (level, msg, fields) => lines.push({ level, msg, ...fields }),
    });
    const tracer = new BasicTracerProvider().getTracer('test');
    logger.log('info', 'before');
    const ids = await tracer.startActiveSpan('work', async (span) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.log('warn', 'inside', { deliveryId: 'whd_1' });
      span.end();
      return span.spanContext();
    });
    expect(lines).toEqual([
      { level: 'info', msg: 'before' },
      { level: 'warn', msg: 'inside', traceId: ids.traceId, spanId: ids.spanId, deliveryId: 'whd_1' },
    ]);
  });
});

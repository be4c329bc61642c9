/**
 * OpenTelemetry over real HTTP, with an in-memory exporter: one GraphQL mutation's trace runs from the
 * caller's `traceparent` through the server span, the GraphQL operation and the storage transaction to
 * the event leaving the outbox and the webhook attempt, and the receiver gets a `traceparent` in it.
 * Metrics: request durations by interface and route template, webhook outcomes, queue sizes, open
 * sockets, rate-limit refusals.
 */
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { graphqlWebSocketRoute, type NodeServer, serve } from '../../src/node/index.js';
import { until } from '../support/until.js';

const ADMIN = 'sbk_telemetry_admin_key_0123456789abcdefghijk';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const reader = new TestReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const received: Headers[] = [];
/** Each log line with the trace id active when it was written, as a host's logger would stamp it. */
const logged: { message: string; traceId: string | undefined }[] = [];
let switchboard: Switchboard;
let server: NodeServer;
let receiver: NodeServer;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  receiver = await serve({
    port: 0,
    shutdownSignals: [],
    fetch: async (request) => {
      received.push(request.headers);
      await request.text();
      return new Response('ok');
    },
  });
  switchboard = createSwitchboard({
    oauth: { adminApiKey: ADMIN },
    logger: {
      log: (_level, message) => {
        logged.push({ message, traceId: trace.getActiveSpan()?.spanContext().traceId });
      },
    },
    relayIntervalMs: 20,
    webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true }, pollIntervalMs: 20 },
    telemetry: { tracerProvider, meterProvider },
    // Reads: the trace test's one, the metric test's 404, then a refusal.
    rateLimits: { rules: { read: { limit: 2, windowMs: 60_000 } } },
  });
  await switchboard.oauth!.ready;
  switchboard.start();
  server = await serve({
    fetch: switchboard.fetch,
    port: 0,
    shutdownSignals: [],
    websockets: [graphqlWebSocketRoute(switchboard.graphqlWebSocket!)],
  });
  await switchboard.webhooks!.admin.createEndpoint({
    url: `${receiver.url}/hooks`,
    eventTypes: ['client.*'],
  });
});

afterAll(async () => {
  await switchboard.close();
  await server.close();
  await receiver.close();
  context.disable();
  propagation.disable();
});

const named = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('traces', () => {
  it('follow one mutation from the caller to the webhook receiver under one trace id', async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN}`,
        'content-type': 'application/json',
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      },
      body: JSON.stringify({
        query: 'mutation AddClient($i: CreateClientInput!) { createClient(input: $i) { id } }',
        variables: { i: { name: 'Ada', email: 'ada@example.com' } },
      }),
    });
    expect(response.status).toBe(200);
    await until(() => named('switchboard.webhook.attempt').length === 1, 'the webhook attempt span', 10_000);

    const [request] = named('POST /graphql');
    const [operation] = named('mutation AddClient');
    const [transaction] = named('switchboard.storage.transaction');
    const [publish] = named('switchboard.outbox.publish');
    const [attempt] = named('switchboard.webhook.attempt');
    for (const span of [request, operation, transaction, publish, attempt])
      expect(span?.spanContext().traceId).toBe(CALLER_TRACE);

    expect(request!.kind).toBe(SpanKind.SERVER);
    expect(parentOf(request!)).toBe(CALLER_SPAN);
    expect(request!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/graphql',
      'http.response.status_code': 200,
    });
    expect(parentOf(operation!)).toBe(request!.spanContext().spanId);
    expect(operation!.attributes).toEqual({
      'graphql.operation.type': 'mutation',
      'graphql.operation.name': 'AddClient',
    });
    expect(parentOf(transaction!)).toBe(operation!.spanContext().spanId);
    // The event was made inside the transaction: its trace continues from there.
    expect(parentOf(publish!)).toBe(transaction!.spanContext().spanId);
    expect(publish!.links[0]?.context.spanId).toBe(
      named('switchboard.outbox.relay')[0]?.spanContext().spanId,
    );
    expect(parentOf(attempt!)).toBe(transaction!.spanContext().spanId);
    expect(attempt!.kind).toBe(SpanKind.CLIENT);
    expect(attempt!.attributes).toMatchObject({
      'http.response.status_code': 200,
      'switchboard.webhook.attempt': 1,
      'switchboard.webhook.event_type': 'client.created',
    });

    // The request line and the attempt's line are written inside their spans: a log shows the trace.
    const lines = logged.filter((l) => l.traceId === CALLER_TRACE).map((l) => l.message);
    expect(lines).toEqual(expect.arrayContaining(['request', 'webhook attempt']));

    // The receiver joins the trace as a child of the attempt.
    expect(received.at(-1)?.get('traceparent')).toBe(
      `00-${CALLER_TRACE}-${attempt!.spanContext().spanId}-01`,
    );
  });

  it('name REST spans by their route template, never the raw path', async () => {
    const created = await fetch(`${server.url}/api/v1/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Grace', email: 'grace@example.com' }),
    });
    const { id } = (await created.json()) as { id: string };
    const read = await fetch(`${server.url}/api/v1/clients/${id}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(read.status).toBe(200);
    const [span] = named('GET /api/v1/clients/{id}');
    expect(span?.attributes).toMatchObject({
      'http.route': '/api/v1/clients/{id}',
      'url.path': `/api/v1/clients/${id}`,
    });
    // No traceparent came in: the request starts its own trace.
    expect(span?.parentSpanContext).toBeUndefined();
  });
});

describe('metrics', () => {
  it('measure requests by interface and route, webhook outcomes and lag, and the queues', async () => {
    const read = () =>
      fetch(`${server.url}/api/v1/clients/nope`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect((await read()).status).toBe(404);
    expect((await read()).status).toBe(429);
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const { resourceMetrics, errors } = await reader.collect();
    socket.close();
    expect(errors).toEqual([]);
    const metrics = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    const points = (name: string) => metrics.find((m) => m.descriptor.name === name)?.dataPoints ?? [];

    const durations = points('http.server.request.duration');
    const labels = durations.map((p) => p.attributes);
    expect(labels).toContainEqual({
      'http.request.method': 'POST',
      'http.route': '/graphql',
      'http.response.status_code': 200,
      'switchboard.interface': 'graphql',
    });
    expect(labels).toContainEqual({
      'http.request.method': 'GET',
      'http.route': '/api/v1/clients/{id}',
      'http.response.status_code': 404,
      'switchboard.interface': 'rest',
    });

    const attempts = points('switchboard.webhook.attempts');
    expect(attempts.map((p) => [p.attributes['switchboard.webhook.outcome'], p.value])).toEqual([
      ['succeeded', 2],
    ]);
    const lag = points('switchboard.webhook.lag')[0]?.value as { count: number } | undefined;
    expect(lag?.count).toBe(2);
    expect(points('switchboard.outbox.backlog')[0]?.value).toBe(0);
    expect(points('switchboard.webhook.pending')[0]?.value).toBe(0);
    expect(points('switchboard.websocket.connections')[0]?.value).toBe(1);
    expect(points('switchboard.graphql.subscriptions')[0]?.value).toBe(0);
    expect(points('switchboard.rate_limit.refusals').map((p) => [p.attributes, p.value])).toEqual([
      [{ 'switchboard.rate_limit.class': 'read' }, 1],
    ]);
  });
});

/**
 * What operators see of an agent's calls, over real HTTP with an in-memory metric reader and span
 * exporter: `switchboard.mcp.tool.calls` counts each tools/call by tool and outcome (ok, error with
 * the service's code, refused for invalid params), and the `mcp.tool <name>` span carries the same
 * outcome, inside its `POST /mcp` server span and around a write's transaction.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { postMcp, toolCall } from '../support/mcp.js';

const ADMIN = 'sbk_mcp_telemetry_admin_key_0123456789abcd';

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

describe('MCP telemetry', () => {
  const exporter = new InMemorySpanExporter();
  const reader = new TestReader();
  let switchboard: Switchboard;
  let server: NodeServer;
  let id = 0;

  const call = async (name: string, args: unknown = {}) => {
    const response = await postMcp(`${server.url}/mcp`, ADMIN, toolCall(name, args, ++id));
    expect(response.status).toBe(200);
    return (await response.json()) as { result?: { isError?: boolean }; error?: { code: number } };
  };

  beforeAll(async () => {
    // As a Node host's SDK does: spans nest along the async calls.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    switchboard = createSwitchboard({
      oauth: { adminApiKey: ADMIN },
      graphql: false,
      telemetry: {
        tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
        meterProvider: new MeterProvider({ readers: [reader] }),
      },
    });
    await switchboard.oauth!.ready;
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
  });
  afterAll(async () => {
    await server?.close();
    await switchboard?.close();
    context.disable();
  });

  it('counts tool calls by tool and outcome, and puts the outcome on the span', async () => {
    expect((await call('create_client', { name: 'Ada', email: 'ada@example.com' })).result?.isError).toBe(
      undefined,
    );
    expect((await call('list_clients')).result?.isError).toBe(undefined);
    expect((await call('list_clients')).result?.isError).toBe(undefined);
    expect((await call('get_client', { id: 'cli_nope' })).result?.isError).toBe(true);
    expect((await call('create_client', { name: '' })).result?.isError).toBe(true);
    expect((await call('get_client', [])).error?.code).toBe(-32602);
    expect((await call('drop_everything')).error?.code).toBe(-32602);

    const { resourceMetrics, errors } = await reader.collect();
    expect(errors).toEqual([]);
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'switchboard.mcp.tool.calls');
    const counted = (metric?.dataPoints ?? []).map((p) => [p.attributes, p.value]);
    expect(counted).toHaveLength(6);
    expect(counted).toEqual(
      expect.arrayContaining([
        [{ 'switchboard.mcp.tool': 'create_client', 'switchboard.mcp.outcome': 'ok' }, 1],
        [{ 'switchboard.mcp.tool': 'list_clients', 'switchboard.mcp.outcome': 'ok' }, 2],
        [
          {
            'switchboard.mcp.tool': 'get_client',
            'switchboard.mcp.outcome': 'error',
            'switchboard.mcp.code': 'not_found',
          },
          1,
        ],
        [
          {
            'switchboard.mcp.tool': 'create_client',
            'switchboard.mcp.outcome': 'error',
            'switchboard.mcp.code': 'validation_failed',
          },
          1,
        ],
        [{ 'switchboard.mcp.tool': 'get_client', 'switchboard.mcp.outcome': 'refused' }, 1],
        // An unknown tool's name is the caller's text: no label for it.
        [{ 'switchboard.mcp.outcome': 'refused' }, 1],
      ]),
    );

    const finished = exporter.getFinishedSpans();
    const spans = finished.filter((s) => s.name.startsWith('mcp.tool '));
    // Each inside its request's server span.
    const parents = spans.map((s) =>
      finished.find((p) => p.spanContext().spanId === s.parentSpanContext?.spanId),
    );
    expect(parents.map((p) => [p?.name, p?.attributes['switchboard.interface']])).toEqual(
      spans.map(() => ['POST /mcp', 'mcp']),
    );
    // A write's transaction is the child of its tool's span.
    const transaction = finished.find((s) => s.name === 'switchboard.storage.transaction');
    expect(transaction?.parentSpanContext?.spanId).toBe(spans[0]!.spanContext().spanId);
    const durations = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'http.server.request.duration');
    expect(durations?.dataPoints.map((p) => p.attributes)).toContainEqual({
      'http.request.method': 'POST',
      'http.route': '/mcp',
      'http.response.status_code': 200,
      'switchboard.interface': 'mcp',
    });
    expect(spans.map((s) => [s.name, s.attributes])).toEqual([
      ['mcp.tool create_client', { 'mcp.tool.name': 'create_client', 'switchboard.mcp.outcome': 'ok' }],
      ['mcp.tool list_clients', { 'mcp.tool.name': 'list_clients', 'switchboard.mcp.outcome': 'ok' }],
      ['mcp.tool list_clients', { 'mcp.tool.name': 'list_clients', 'switchboard.mcp.outcome': 'ok' }],
      [
        'mcp.tool get_client',
        {
          'mcp.tool.name': 'get_client',
          'switchboard.mcp.outcome': 'error',
          'switchboard.mcp.code': 'not_found',
        },
      ],
      [
        'mcp.tool create_client',
        {
          'mcp.tool.name': 'create_client',
          'switchboard.mcp.outcome': 'error',
          'switchboard.mcp.code': 'validation_failed',
        },
      ],
    ]);
  });
});

/**
 * Switchboard as the README sets it up: `createSwitchboard` on `serve`, in memory, or on PostgreSQL
 * (storage and LISTEN/NOTIFY bus, as examples/server/main.ts wires them) when DATABASE_URL is set.
 */
// The built package, as a user runs it (`npm run bench:http` builds it first).
import { createSwitchboard } from 'switchboard-kit';
import { serve } from 'switchboard-kit/node';
import { createPostgresEventBus, createPostgresStorage } from 'switchboard-kit/storage/postgres';
import { announce, BENCH_KEY, benchRateLimits, seedBenchData } from './fixture.js';

// BENCH_OTEL=1: the OpenTelemetry SDK on, every span sampled and batched to an exporter that drops
// them, metrics aggregated for a reader: what telemetry costs when a host turns it on.
if (process.env.BENCH_OTEL === '1') await startTelemetrySdk();

const url = process.env.DATABASE_URL;
const storage = url ? createPostgresStorage({ connectionString: url }) : undefined;
await storage?.migrate();
const bus = storage ? createPostgresEventBus({ pool: storage.pool }) : undefined;

// No logger: the default is silent, so no request log line is written (a host that logs pays for it).
const switchboard = createSwitchboard({
  ...(storage && bus ? { storage, bus } : {}),
  oauth: { adminApiKey: BENCH_KEY },
  rateLimits: benchRateLimits,
});
await seedBenchData(switchboard.domain);
switchboard.start();

const server = await serve({
  fetch: switchboard.fetch,
  port: 0,
  onShutdown: async () => {
    await switchboard.close();
    await bus?.close();
    await storage?.close();
    // stdin (held open by announce) would otherwise keep the process alive.
    process.exit(0);
  },
});
announce(server.port);

async function startTelemetrySdk(): Promise<void> {
  const { metrics } = await import('@opentelemetry/api');
  const { NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { MeterProvider } = await import('@opentelemetry/sdk-metrics');
  const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
  const dropping = {
    export: (_spans: unknown, done: (r: { code: 0 }) => void) => done({ code: 0 }),
    shutdown: async () => {},
  };
  new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] }).register();
  metrics.setGlobalMeterProvider(
    new MeterProvider({ readers: [new PrometheusExporter({ preventServerStart: true })] }),
  );
}

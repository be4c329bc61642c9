/**
 * The complete example server: every Switchboard interface on one port, in-memory storage with demo
 * data (or PostgreSQL when DATABASE_URL is set). Run it with `npm start`.
 */
import { createSwitchboard, jsonLogger, type Logger } from 'switchboard-kit';
import { graphqlWebSocketRoute, resolveHost, serve } from 'switchboard-kit/node';
import { randomSecret } from 'switchboard-kit/oauth';
import { createPostgresEventBus, createPostgresStorage } from 'switchboard-kit/storage/postgres';
import { ConfigError, loadConfig, type ServerConfig } from './config.js';
import { demoUsers, registerDemoClients } from './demo-auth.js';
import { seedDemoData } from './seed.js';
import { startTelemetry } from './telemetry.js';
import { withTraceIds } from './trace-ids.js';

const DEMO_PASSWORDS = { 'ada@example.com': 'demo-password-ada', 'grace@example.com': 'demo-password-grace' };

async function main(config: ServerConfig): Promise<void> {
  const log = jsonLogger((line) => process.stdout.write(`${line}\n`), { level: config.logLevel });
  // First: createSwitchboard takes the global meter provider when it is called.
  const telemetry = await startTelemetry(config, log);
  const logger = withTraceIds(log);
  const adminApiKey = config.apiKey ?? randomSecret('sbk_');
  const users = demoUsers();
  const database = config.databaseUrl ? await connectDatabase(config.databaseUrl, logger) : undefined;
  const switchboard = createSwitchboard({
    logger,
    ...(database ? { storage: database.storage, bus: database.bus } : {}),
    oauth: { issuer: config.publicUrl, adminApiKey, idTokens: {}, signIn: users.signIn },
    // v1 stays served but is deprecated (Deprecation, Sunset and a Link to v2 on every response); v2 is
    // the same API where an order's total is one { amount, currency } object.
    rest: {
      versions: [
        {
          basePath: '/api/v1',
          apiVersion: 1,
          deprecation: {
            deprecatedAt: new Date('2026-06-01T00:00:00Z'),
            sunsetAt: new Date('2027-06-01T00:00:00Z'),
            successor: '/api/v2',
          },
        },
        { basePath: '/api/v2', apiVersion: 2 },
      ],
    },
    webhooks: {
      outbound: {
        resolveHost,
        allowHttp: config.allowLocalWebhooks,
        allowPrivateAddresses: config.allowLocalWebhooks,
      },
      ...(config.webhookRetryDelaysMs ? { delaysMs: config.webhookRetryDelaysMs } : {}),
      ...(config.webhookLeaseMs ? { leaseMs: config.webhookLeaseMs } : {}),
      ...(config.pollIntervalMs ? { pollIntervalMs: config.pollIntervalMs } : {}),
    },
    ...(config.pollIntervalMs ? { relayIntervalMs: config.pollIntervalMs } : {}),
    rateLimits: config.rateLimits ? { trustedProxies: config.trustedProxies } : false,
  });
  if (config.seed) await seedDemoData(switchboard.domain);
  for (const [email, password] of Object.entries(DEMO_PASSWORDS))
    await users.add(switchboard, email, password);
  const demo = await registerDemoClients(switchboard, {
    secret: config.demoClientSecret,
    redirectUris: config.demoRedirectUris,
  });
  switchboard.start();

  const server = await serve({
    fetch: telemetry.serveMetrics(switchboard.fetch, { adminApiKey }),
    port: config.port,
    host: config.host,
    logger,
    websockets: switchboard.graphqlWebSocket ? [graphqlWebSocketRoute(switchboard.graphqlWebSocket)] : [],
    onShutdown: async () => {
      await switchboard.close();
      await database?.close();
      await telemetry.shutdown();
    },
  });

  const base = config.port === 0 ? server.url : config.publicUrl;
  const lines = [
    '',
    `Switchboard example server listening on ${server.url}`,
    '',
    'Interfaces',
    `  REST v2          ${base}/api/v2  (reference: ${base}/api/v2/docs, OpenAPI: ${base}/api/v2/openapi.json)`,
    `  REST v1          ${base}/api/v1  (deprecated, sunset 2027-06-01; reference: ${base}/api/v1/docs)`,
    `  GraphQL          ${base}/graphql  (GraphiQL in a browser; subscriptions on ${base.replace(/^http/, 'ws')}/graphql)`,
    `  MCP              ${base}/mcp  (AI agents: every resource as tools, Streamable HTTP)`,
    `  OAuth metadata   ${base}/.well-known/oauth-authorization-server`,
    `  Authorize        ${base}/oauth/authorize`,
    `  Token            ${base}/oauth/token`,
    `  Webhooks         ${base}/api/v2/webhook-endpoints  (${webhookMode(config)})`,
    `  Event feed       ${base}/api/v2/events  (pages with ?after=, or Server-Sent Events; docs/events.md)`,
    `  Console          ${base}/console  (sign in with the admin API key below)`,
    `  Liveness         ${base}/healthz`,
    `  Readiness        ${base}/readyz`,
    `  Metrics          ${base}/metrics  (Prometheus text, to the admin API key)`,
    '',
    'Credentials (send as  Authorization: Bearer <key or token>)',
    `  Admin API key    ${config.apiKey ? '(from SWITCHBOARD_API_KEY)' : adminApiKey}`,
    `  OAuth client     ${demo.botId} (confidential)  secret: ${demo.botSecret ?? '(registered earlier; unchanged)'}`,
    `  OAuth client     ${demo.widgetId} (public, PKCE)`,
    `  Redirect URIs    ${demo.redirectUris.join(', ')}`,
    ...Object.entries(DEMO_PASSWORDS).map(([email, password]) => `  Demo user        ${email} / ${password}`),
    '',
    `Webhook worker     ${switchboard.webhooks?.dispatcher.workerId ?? '(webhooks off)'}`,
    `Storage            ${config.databaseUrl ? 'PostgreSQL' : 'in-memory'}${config.seed ? ' (demo data loaded)' : ''}`,
    `Rate limits        ${config.rateLimits ? 'on (RATE_LIMITS=false turns them off)' : 'off'}`,
    `Telemetry          ${telemetryMode(config)}`,
    '',
    'Press Ctrl+C to stop (in-flight requests finish first).',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** PostgreSQL storage (migrated on start) and the LISTEN/NOTIFY bus that links instances. */
async function connectDatabase(connectionString: string, logger: Logger) {
  const storage = createPostgresStorage({ connectionString, logger });
  const { applied, version } = await storage.migrate();
  logger.log('info', 'database migrated', { applied, version });
  const bus = createPostgresEventBus({ pool: storage.pool, logger });
  return {
    storage,
    bus,
    async close(): Promise<void> {
      await bus.close();
      await storage.close();
    },
  };
}

try {
  await main(loadConfig(process.env));
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\nSee examples/server/README.md for every setting.\n`);
    process.exit(78); // EX_CONFIG
  }
  throw error;
}

/** The banner's word on where webhooks may go, and how to change it. */
function webhookMode(config: ServerConfig): string {
  if (!config.allowLocalWebhooks) return 'https receivers on public addresses only';
  return config.production
    ? 'ALLOW_LOCAL_WEBHOOKS=true: http and loopback/private receivers allowed, in production'
    : 'development: http and loopback/private receivers allowed; NODE_ENV=production turns this off';
}

/** The banner's word on where spans and metrics go (the endpoint's origin: never credentials in a URL). */
function telemetryMode(config: ServerConfig): string {
  if (!config.otlpEndpoint) return 'metrics at /metrics; OTEL_EXPORTER_OTLP_ENDPOINT adds traces over OTLP';
  const origin = new URL(config.otlpEndpoint).origin;
  return `metrics at /metrics; traces and metrics over OTLP to ${origin} as ${config.serviceName}`;
}

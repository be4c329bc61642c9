import type { LogLevel } from 'switchboard-kit';

/** Everything the example server can be told from outside. See README.md beside this file. */
export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  /** The URL people and OAuth redirects use to reach this server. */
  readonly publicUrl: string;
  /** `postgres://…` switches storage to PostgreSQL; in-memory with demo data when absent. */
  readonly databaseUrl: string | undefined;
  /** The admin API key; generated at start-up (and printed) when absent. */
  readonly apiKey: string | undefined;
  readonly logLevel: LogLevel;
  /** Secret of the confidential demo OAuth client `demo-bot`; generated (and printed) when absent. */
  readonly demoClientSecret: string | undefined;
  /** Redirect URIs allowed for the demo OAuth clients. */
  readonly demoRedirectUris: readonly string[];
  /** `NODE_ENV=production`: development allowances are off unless asked for. */
  readonly production: boolean;
  /**
   * Development allowance for webhooks: http:// and loopback/private receiver addresses. Default: on
   * outside production (`NODE_ENV` other than `production`), off in production.
   */
  readonly allowLocalWebhooks: boolean;
  /** How often the outbox relay and the webhook dispatcher look for work left by other instances. */
  readonly pollIntervalMs: number | undefined;
  /** Webhook retry delays (ms after the previous attempt); the default schedule spans about 32 hours. */
  readonly webhookRetryDelaysMs: readonly number[] | undefined;
  /** How long a claimed webhook delivery stays with its worker before another may take it over. */
  readonly webhookLeaseMs: number | undefined;
  /** Request budgets per caller (docs/operations.md); on unless `RATE_LIMITS=false`. */
  readonly rateLimits: boolean;
  /** How many proxies in front append to `X-Forwarded-For` (`TRUSTED_PROXIES`, default 0). */
  readonly trustedProxies: number;
  /** Seed demo clients, orders and messages (default: only with in-memory storage). */
  readonly seed: boolean;
  /**
   * `OTEL_EXPORTER_OTLP_ENDPOINT`: an OTLP/HTTP collector; traces and metrics go to its `/v1/traces` and
   * `/v1/metrics`. Without it, metrics are served at `/metrics` only and no traces are recorded.
   */
  readonly otlpEndpoint: string | undefined;
  /** `OTEL_SERVICE_NAME`: the `service.name` of every span and metric. */
  readonly serviceName: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`The configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Reads and checks the configuration; every problem is reported at once, with what to do about it. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): ServerConfig {
  const problems: string[] = [];

  const port = Number(env.PORT ?? '4000');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    problems.push(`PORT must be a whole number from 0 to 65535 (got "${env.PORT}").`);
  }

  const host = env.HOST ?? '127.0.0.1';
  if (!/^[\w.:-]+$/.test(host)) problems.push(`HOST must be a host name or IP address (got "${host}").`);

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\/.+/.test(databaseUrl)) {
    problems.push('DATABASE_URL must look like postgres://user:password@host:5432/database.');
  }

  const apiKey = env.SWITCHBOARD_API_KEY || undefined;
  if (apiKey !== undefined && apiKey.length < 32) {
    problems.push('SWITCHBOARD_API_KEY must be at least 32 characters; unset it to have one generated.');
  }

  const logLevel = (env.LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}.`);

  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicUrl = (
    env.PUBLIC_URL ?? `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`
  ).replace(/\/$/, '');
  if (env.PUBLIC_URL !== undefined && !URL.canParse(publicUrl))
    problems.push(`PUBLIC_URL must be an absolute URL (got "${env.PUBLIC_URL}").`);

  const demoClientSecret = env.DEMO_CLIENT_SECRET || undefined;
  if (demoClientSecret !== undefined && demoClientSecret.length < 32) {
    problems.push('DEMO_CLIENT_SECRET must be at least 32 characters; unset it to have one generated.');
  }
  const demoRedirectUris = (env.DEMO_REDIRECT_URIS ?? 'http://127.0.0.1:8080/callback')
    .split(',')
    .map((uri) => uri.trim())
    .filter(Boolean);
  for (const uri of demoRedirectUris) {
    if (!URL.canParse(uri)) problems.push(`DEMO_REDIRECT_URIS has "${uri}", which is not an absolute URL.`);
  }

  const pollIntervalMs = milliseconds(env, 'POLL_INTERVAL_MS', problems);
  const webhookLeaseMs = milliseconds(env, 'WEBHOOK_LEASE_MS', problems);
  const delays = env.WEBHOOK_RETRY_DELAYS_MS?.split(',').map((d) => Number(d.trim()));
  if (
    delays &&
    (delays.length < 3 || delays.length > 10 || delays.some((d) => !Number.isInteger(d) || d < 0))
  ) {
    problems.push('WEBHOOK_RETRY_DELAYS_MS must be 3 to 10 comma-separated whole numbers of milliseconds.');
  }

  const otlpEndpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  if (otlpEndpoint !== undefined && !(/^https?:\/\//.test(otlpEndpoint) && URL.canParse(otlpEndpoint))) {
    problems.push(
      `OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL like http://localhost:4318 (got "${otlpEndpoint}").`,
    );
  }
  const serviceName = env.OTEL_SERVICE_NAME || 'switchboard-example';

  const rateLimits = flag(env, 'RATE_LIMITS', problems) ?? true;
  const trustedProxies = Number(env.TRUSTED_PROXIES || '0');
  if (!Number.isInteger(trustedProxies) || trustedProxies < 0 || trustedProxies > 10)
    problems.push(`TRUSTED_PROXIES must be a whole number from 0 to 10 (got "${env.TRUSTED_PROXIES}").`);
  const seedSetting = flag(env, 'SEED_DEMO_DATA', problems);
  const production = env.NODE_ENV === 'production';
  const allowLocalWebhooks = flag(env, 'ALLOW_LOCAL_WEBHOOKS', problems) ?? !production;

  if (problems.length) throw new ConfigError(problems);
  return {
    port,
    host,
    publicUrl,
    databaseUrl,
    apiKey,
    logLevel,
    demoClientSecret,
    demoRedirectUris,
    production,
    allowLocalWebhooks,
    pollIntervalMs,
    webhookRetryDelaysMs: delays,
    webhookLeaseMs,
    rateLimits,
    trustedProxies,
    seed: seedSetting ?? databaseUrl === undefined,
    otlpEndpoint,
    serviceName,
  };
}

function flag(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  problems: string[],
): boolean | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  problems.push(`${name} must be true or false (got "${value}").`);
  return undefined;
}

function milliseconds(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  problems: string[],
): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const ms = Number(value);
  if (Number.isInteger(ms) && ms > 0) return ms;
  problems.push(`${name} must be a positive whole number of milliseconds (got "${value}").`);
  return undefined;
}

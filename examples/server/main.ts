/**
 * The complete example server: every Switchboard interface on one port, in-memory storage with demo
 * data (or PostgreSQL when DATABASE_URL is set). Run it with `npm start`.
 */
import { createSwitchboard, jsonLogger } from 'switchboard-kit';
import { serve } from 'switchboard-kit/node';
import { ConfigError, loadConfig, type ServerConfig } from './config.js';
import { seedDemoData } from './seed.js';

async function main(config: ServerConfig): Promise<void> {
  const logger = jsonLogger((line) => process.stdout.write(`${line}\n`), { level: config.logLevel });
  const switchboard = createSwitchboard({ logger });
  if (config.seed) await seedDemoData(switchboard.domain);
  switchboard.start();

  const server = await serve({
    fetch: switchboard.fetch,
    port: config.port,
    host: config.host,
    logger,
    onShutdown: () => switchboard.close(),
  });

  const base = config.port === 0 ? server.url : config.publicUrl;
  const lines = [
    '',
    `Switchboard example server listening on ${server.url}`,
    '',
    `  Liveness         ${base}/healthz`,
    `  Readiness        ${base}/readyz`,
    '',
    `  Storage          ${config.databaseUrl ? 'PostgreSQL' : 'in-memory'}${config.seed ? ' (demo data loaded)' : ''}`,
    '',
    'Press Ctrl+C to stop (in-flight requests finish first).',
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
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

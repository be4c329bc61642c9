import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningExample,
  runExampleServerExpectingFailure,
  startExampleServer,
} from '../support/example-server.js';

describe('example server', () => {
  let server: RunningExample;
  beforeAll(async () => {
    server = await startExampleServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('prints the URL of every interface it serves', () => {
    expect(server.output()).toContain(`${server.url}/healthz`);
    expect(server.output()).toContain(`${server.url}/readyz`);
    expect(server.output()).toContain('in-memory (demo data loaded)');
  });

  it('is live and ready', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ready', storage: 'ok' });
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const other = await startExampleServer();
    expect(await other.stop()).toBe(0);
  });

  it('refuses to start with bad configuration and says what to fix', async () => {
    const { code, output } = await runExampleServerExpectingFailure({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://nope',
      LOG_LEVEL: 'loud',
    });
    expect(code).toBe(78);
    expect(output).toContain('PORT must be a whole number from 0 to 65535 (got "eighty").');
    expect(output).toContain('DATABASE_URL must look like postgres://');
    expect(output).toContain('LOG_LEVEL must be one of debug, info, warn, error.');
  });
});

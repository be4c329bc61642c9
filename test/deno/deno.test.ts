import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withSmokeDatabase } from '../runtimes/smoke-database.js';
import { expectSmokeFindings } from '../runtimes/smoke-findings.js';
import { DENO_TIMEOUT_MS, root, runOnDeno } from '../support/deno.js';

describe('Deno runtime', () => {
  it('serves the built package with Deno.serve over real HTTP', { timeout: DENO_TIMEOUT_MS }, async () => {
    expect(existsSync(`${root}dist/index.js`), 'run `npm run build` first').toBe(true);
    expect(await runOnDeno('test/deno/smoke.ts')).toEqual({
      health: { status: 200, body: { status: 'ok' } },
      ready: 200,
      clients: ['deno@example.com'],
    });
  });

  it('runs the runtime smoke suite: REST, GraphQL, a WebSocket subscription, OAuth and signed webhooks', {
    timeout: DENO_TIMEOUT_MS,
  }, async () => {
    expectSmokeFindings(await runOnDeno('test/deno/matrix-smoke.ts'), { runtime: 'deno' });
  });

  it('runs the runtime smoke suite on PostgreSQL storage', { timeout: DENO_TIMEOUT_MS }, async () => {
    const findings = await withSmokeDatabase(() => runOnDeno('test/deno/matrix-smoke.ts'));
    expectSmokeFindings(findings, { runtime: 'deno' });
  });
});

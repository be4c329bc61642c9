import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withSmokeDatabase } from '../runtimes/smoke-database.js';
import { expectSmokeFindings } from '../runtimes/smoke-findings.js';
import { BUN_TIMEOUT_MS, root, runOnBun } from '../support/bun.js';

describe('Bun runtime', () => {
  it('runs the runtime smoke suite: REST, GraphQL, a subscription over Bun WebSockets, OAuth and signed webhooks', {
    timeout: BUN_TIMEOUT_MS,
  }, async () => {
    expect(existsSync(`${root}dist/bun/index.js`), 'run `npm run build` first').toBe(true);
    expectSmokeFindings(await runOnBun('test/bun/smoke.ts'), { runtime: 'bun' });
  });

  it('runs the runtime smoke suite on PostgreSQL storage', { timeout: BUN_TIMEOUT_MS }, async () => {
    const findings = await withSmokeDatabase(() => runOnBun('test/bun/smoke.ts'));
    expectSmokeFindings(findings, { runtime: 'bun' });
  });
});

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DENO_TIMEOUT_MS, root, runOnDeno } from '../support/deno.js';

const built = existsSync(`${root}dist/webhooks/index.js`);

describe('webhooks on Deno', () => {
  it.skipIf(!built)(
    'signs, sends, verifies and dedupes with the built package (run `npm run build` first)',
    { timeout: DENO_TIMEOUT_MS },
    async () => {
      expect(await runOnDeno('test/webhooks/fixtures/deno-smoke.ts', { args: [`${root}dist`] })).toEqual({
        sent: 1,
        processed: ['evt_deno'],
        standard: true,
      });
    },
  );
});

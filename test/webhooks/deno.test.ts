import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const built = existsSync(`${root}dist/webhooks/index.js`);

describe('webhooks on Deno', () => {
  it.skipIf(!built)(
    'signs, sends, verifies and dedupes with the built package (run `npm run build` first)',
    async () => {
      const { stdout } = await promisify(execFile)(
        `${root}node_modules/.bin/deno`,
        [
          'run',
          '--allow-net=127.0.0.1',
          '--allow-read',
          '--allow-env',
          'test/webhooks/fixtures/deno-smoke.ts',
          `${root}dist`,
        ],
        { cwd: root, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' }, timeout: 60_000 },
      );
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
        sent: 1,
        processed: ['evt_deno'],
        standard: true,
      });
    },
  );
});

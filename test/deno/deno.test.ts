import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const deno = `${root}node_modules/.bin/deno`;

describe('Deno runtime', () => {
  it('serves the built package with Deno.serve over real HTTP', { timeout: 120_000 }, async () => {
    expect(existsSync(`${root}dist/index.js`), 'run `npm run build` first').toBe(true);
    const { stdout } = await promisify(execFile)(
      deno,
      ['run', '--allow-net=127.0.0.1', '--allow-read', '--allow-env', 'test/deno/smoke.ts'],
      { cwd: root, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' }, timeout: 110_000 },
    );
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
      health: { status: 200, body: { status: 'ok' } },
      ready: 200,
      clients: ['deno@example.com'],
    });
  });
});

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the REST handler set on Deno', () => {
  it('serves requests with Deno.serve over real HTTP, from source', async () => {
    const { stdout } = await promisify(execFile)(
      `${root}node_modules/.bin/deno`,
      [
        'run',
        '--allow-net=127.0.0.1',
        '--allow-read',
        '--allow-env',
        '--unstable-sloppy-imports',
        '--node-modules-dir=manual',
        'test/rest/deno-smoke.ts',
      ],
      { cwd: root, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' }, timeout: 60_000 },
    );
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
      created: { status: 201, location: expect.stringMatching(/^\/api\/v1\/clients\/cli_\w+$/) },
      list: {
        status: 200,
        link: '</api/v1/clients?limit=1&page=1>; rel="first", </api/v1/clients?limit=1&page=1>; rel="last"',
        total: 1,
      },
      missing: { status: 404, type: 'application/problem+json' },
    });
  }, 90_000);
});

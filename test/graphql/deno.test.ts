import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('GraphQL on Deno', () => {
  it('serves queries over Deno.serve and subscriptions over Deno.upgradeWebSocket', {
    timeout: 120_000,
  }, async () => {
    const { stdout } = await promisify(execFile)(
      `${root}node_modules/.bin/deno`,
      // Straight from the sources: sloppy imports map the `.js` specifiers to the `.ts` files.
      [
        'run',
        '--unstable-sloppy-imports',
        '--allow-net=127.0.0.1',
        '--allow-read',
        '--allow-env',
        'test/graphql/deno/smoke.ts',
      ],
      { cwd: root, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' }, timeout: 110_000 },
    );
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
      http: { status: 200, body: { data: { messages: [{ content: 'hi from Deno' }] } } },
      subscription: { data: { onNewMessage: { content: 'hi from Deno', visitor_id: 'v' } } },
    });
  });
});

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** Compiling on a loaded two-core machine is slow: tests that run Deno allow this long. */
export const DENO_TIMEOUT_MS = 120_000;

export interface DenoRunOptions {
  /** Run TypeScript sources directly: sloppy imports map the `.js` specifiers to the `.ts` files. */
  readonly fromSource?: boolean;
  /** Arguments passed on to the script. */
  readonly args?: readonly string[];
}

/**
 * Runs a script on Deno (the binary of the `deno` npm package, with this repository's node_modules)
 * and returns the JSON of the last line it printed: each smoke script reports its findings that way.
 */
export async function runOnDeno(script: string, options: DenoRunOptions = {}): Promise<unknown> {
  const flags = ['--allow-net=127.0.0.1', '--allow-read', '--allow-env', '--node-modules-dir=manual'];
  if (options.fromSource) flags.push('--unstable-sloppy-imports');
  const { stdout } = await promisify(execFile)(
    `${root}node_modules/.bin/deno`,
    ['run', ...flags, script, ...(options.args ?? [])],
    {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
      timeout: DENO_TIMEOUT_MS - 10_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

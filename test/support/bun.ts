import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { root } from './deno.js';

export { root };

/** Tests that run Bun allow this long: starting it is fast, but the 2-core CI machine may be loaded. */
export const BUN_TIMEOUT_MS = 60_000;

/**
 * Where the Bun binary is: `BUN_BINARY`, else the one the `bun` devDependency installs (its bin, or the
 * `@oven/bun-<platform>-<arch>` package it brings), so no global install is needed. Undefined when none.
 */
export function bunBinary(): string | undefined {
  if (process.env.BUN_BINARY) return existsSync(process.env.BUN_BINARY) ? process.env.BUN_BINARY : undefined;
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch;
  const file = process.platform === 'win32' ? 'bun.exe' : 'bun';
  return [
    `${root}node_modules/.bin/${file}`,
    `${root}node_modules/@oven/bun-${process.platform}-${arch}/bin/${file}`,
  ].find((path) => existsSync(path));
}

/**
 * Runs a script on Bun with this repository's node_modules and returns the JSON of the last line it
 * printed: each smoke script reports its findings that way. Throws when there is no Bun binary, so a
 * runtime missing from the matrix fails rather than passing by being skipped.
 */
export async function runOnBun(script: string, args: readonly string[] = []): Promise<unknown> {
  const bun = bunBinary();
  if (!bun)
    throw new Error(
      'No Bun binary (node_modules/.bin/bun, or BUN_BINARY): run `npm install`, which installs the ' +
        '`bun` devDependency, or point BUN_BINARY at one.',
    );
  const { stdout } = await promisify(execFile)(bun, ['run', script, ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1' },
    timeout: BUN_TIMEOUT_MS - 10_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

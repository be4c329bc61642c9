/**
 * The built package on every Node it supports: the lowest that package.json's `engines` allows, and
 * the current LTS lines, 22 and 24. Each binary comes from the npm registry (`node-<platform>-<arch>`,
 * the packages the `node` package installs), kept in node_modules/.cache between runs. A version that
 * cannot be installed fails the test: a runtime that is not tested is not supported. The whole suite
 * runs on 22 and 24 as well: scripts/test-other-nodes.mjs, the last step of `npm test`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { root } from '../support/deno.js';
import { nodeBinary } from './node-binary.mjs';
import { expectSmokeFindings } from './smoke-findings.js';

const run = promisify(execFile);
const engines = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { engines: { node: string } })
  .engines;
const lowest = /^>=\s*(\d+\.\d+\.\d+)$/.exec(engines.node)?.[1];

describe.each([lowest!, '22', '24'])('the built package on Node %s', (version) => {
  it('runs the runtime smoke suite: REST, GraphQL, a WebSocket subscription, OAuth and signed webhooks', {
    timeout: 180_000,
  }, async () => {
    expect(lowest, `engines.node should read ">=x.y.z", not "${engines.node}"`).toBeDefined();
    expect(existsSync(`${root}dist/index.js`), 'run `npm run build` first').toBe(true);
    const node = await nodeBinary(version);
    const { stdout } = await run(node, ['test/runtimes/node-smoke.mjs'], { cwd: root, timeout: 60_000 });
    const { node: running, ...findings } = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      node: string;
    };
    expect(running).toMatch(new RegExp(`^v${version.replaceAll('.', '\\.')}`));
    expectSmokeFindings(findings, { runtime: 'node' });
  });
});

// The whole test suite again on the other Node lines the package supports (22 and 24; `npm test` ran it
// on the machine's Node first). Each binary comes from the npm registry; one that cannot be installed
// fails the run. The runtime-matrix test is left out here: it already runs every version itself.
// Both test projects run (vitest.config.ts), not only `unit`: much of what differs between Node lines
// (fetch, streams, WebSocket, child processes, the example server started with this very binary, the
// framework examples on the built package) is exercised by the `e2e` files.
import { spawnSync } from 'node:child_process';
import { nodeBinary } from '../test/runtimes/node-binary.mjs';

const versions = process.argv.slice(2).length ? process.argv.slice(2) : ['22', '24'];
for (const version of versions) {
  const node = await nodeBinary(version);
  const running = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`\n== the test suite on Node ${running} ==\n`);
  const run = spawnSync(
    node,
    ['node_modules/vitest/vitest.mjs', 'run', '--exclude', 'test/runtimes/node-versions.test.ts'],
    { stdio: 'inherit', env: { ...process.env, PATH: `${node.replace(/\/node$/, '')}:${process.env.PATH}` } },
  );
  if (run.status !== 0) {
    console.error(`The test suite failed on Node ${running}.`);
    process.exit(run.status ?? 1);
  }
}

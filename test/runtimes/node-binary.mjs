// A Node binary of a given version from the npm registry (`node-<platform>-<arch>`, the packages the
// `node` package installs), kept in node_modules/.cache/node-versions between runs. Plain JavaScript:
// the node-versions test and scripts/test-other-nodes.mjs both use it.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The path of the `node` binary of `version` (e.g. `22`, `20.19.0`), installed first if absent. */
export async function nodeBinary(version) {
  const dir = `${root}node_modules/.cache/node-versions/${version}`;
  const binary = `${dir}/node_modules/node-${process.platform}-${process.arch}/bin/node`;
  if (!existsSync(binary))
    await promisify(execFile)('npm', [
      'install',
      '--prefix',
      dir,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      `node-${process.platform}-${process.arch}@${version}`,
    ]);
  return binary;
}

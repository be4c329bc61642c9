/**
 * Every package installing switchboard-kit brings (its production dependency tree, as package-lock.json
 * records it) runs on every Node that our `engines` admits, so installing on the lowest prints no
 * EBADENGINE warning. Odd-numbered Node lines are left out: they never become LTS and leave support within
 * months, and dependencies say so (lru-cache: `20 || >=22`).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => JSON.parse(readFileSync(`${root}${file}`, 'utf8'));

interface LockedPackage {
  readonly version?: string;
  readonly dev?: boolean;
  readonly devOptional?: boolean;
  readonly engines?: { readonly node?: string } | readonly string[];
}

/** Our `engines.node` without the odd lines: `^20.19.0 || ^22.0.0 || … || >=N` for ">=20.19.0". */
function supported(engines: string): string {
  const lowest = semver.minVersion(engines);
  if (!lowest) throw new Error(`engines.node "${engines}" admits no version`);
  const lines = [`^${lowest.version}`];
  let major = lowest.major + (lowest.major % 2 === 0 ? 2 : 1);
  for (; major < 40; major += 2) lines.push(`^${major}.0.0`);
  return `${lines.join(' || ')} || >=${major}`;
}

it('no runtime dependency asks for a Node that our engines field does not', () => {
  const ours = read('package.json').engines.node as string;
  const range = supported(ours);
  const lock = read('package-lock.json') as { packages: Record<string, LockedPackage> };
  // The hosts install our required peers too (zod): the lock file marks them dev, as ours to develop with.
  const manifest = read('package.json');
  const optional = manifest.peerDependenciesMeta ?? {};
  const peers = Object.keys(manifest.peerDependencies ?? {})
    .filter((name) => !optional[name]?.optional)
    .map((name) => `node_modules/${name}`);
  const runtime = Object.entries(lock.packages).filter(
    ([path, entry]) => peers.includes(path) || (path !== '' && !entry.dev && !entry.devOptional),
  );
  // The check must see the tree: graphql and zod are runtime dependencies.
  expect(runtime.map(([path]) => path)).toEqual(
    expect.arrayContaining(['node_modules/graphql', 'node_modules/zod']),
  );

  const refusing = runtime.flatMap(([path, entry]) => {
    const node = Array.isArray(entry.engines) ? undefined : (entry.engines as { node?: string })?.node;
    if (!node || semver.subset(range, node, { includePrerelease: false })) return [];
    return [`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${node}`];
  });
  expect(refusing, `ours: ${ours}`).toEqual([]);
});

it('the check refuses a dependency that leaves out our lowest Node', () => {
  expect(semver.subset(supported('>=20.19.0'), '>=22.15.0')).toBe(false);
  expect(semver.subset(supported('>=20.19.0'), '20 || >=22')).toBe(true);
});

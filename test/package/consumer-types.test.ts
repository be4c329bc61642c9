/**
 * A consumer's strict type-check of the packed package (`npm pack`), with `skipLibCheck: false`: every
 * subpath export imported, and only what installing the package brings (its dependencies and declared
 * peers, plus @types/node as any Node project has). A published type that needs one of our
 * devDependencies fails here, as it would in a user's project.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  exports: Record<string, unknown>;
};
const app = mkdtempSync(join(tmpdir(), 'switchboard-consumer-'));
afterAll(() => rmSync(app, { recursive: true, force: true }));

it('type-checks every subpath export in a strict consumer project without skipLibCheck', () => {
  // Without scripts: prepack would rebuild dist/ under the other tests that run it (the test below
  // checks what prepack is for).
  const tarball = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', app], {
    cwd: root,
  })
    .toString()
    .trim()
    .split('\n')
    .at(-1)!;
  const installed = join(app, 'node_modules', 'switchboard-kit');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(app, tarball), '-C', installed, '--strip-components=1']);
  const provided = [
    ...Object.keys(manifest.dependencies),
    ...Object.keys(manifest.peerDependencies ?? {}),
    '@types/node',
  ];
  for (const name of provided) {
    const link = join(app, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), link, 'dir');
  }
  const subpaths = Object.keys(manifest.exports).filter((p) => p !== './package.json');
  writeFileSync(
    join(app, 'index.ts'),
    subpaths
      .map((p, i) => `import * as m${i} from '${join('switchboard-kit', p)}';\nconsole.log(m${i});`)
      .join('\n'),
  );
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        types: ['node'],
      },
      files: ['index.ts'],
    }),
  );
  let output = '';
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', app], { cwd: app });
  } catch (error) {
    output = String((error as { stdout?: Buffer }).stdout ?? error);
  }
  expect(output).toBe('');
}, 120_000);

it('packs dist/, built by prepack: every file the exports name is in the tarball', () => {
  // `npm pack` and `npm publish` run prepack first, so a tarball never lacks dist/ (the README's
  // instructions for Deno install one).
  expect(manifest.scripts.prepack).toBe('npm run build');
  const [listing] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root }).toString(),
  ) as [{ files: { path: string }[] }];
  const packed = new Set(listing.files.map((file) => file.path));
  const named = JSON.stringify(manifest.exports).match(/\.\/dist\/[^"]+/g) ?? [];
  expect(named.length).toBeGreaterThan(40);
  expect(named.map((file) => file.slice(2)).filter((file) => !packed.has(file))).toEqual([]);
}, 60_000);

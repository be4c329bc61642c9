/** Every subpath the package exports is listed where a reader looks for it: README and docs/api.md. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(`${root}${file}`, 'utf8');
const manifest = JSON.parse(read('package.json')) as { exports: Record<string, unknown> };
const imports = Object.keys(manifest.exports)
  .filter((subpath) => subpath !== './package.json')
  .map((subpath) => (subpath === '.' ? 'switchboard-kit' : `switchboard-kit/${subpath.slice(2)}`));

it.each(['README.md', 'docs/api.md'])('%s lists every subpath export', (file) => {
  const text = read(file);
  const missing = imports.filter((name) => !text.includes(`| \`${name}\``));
  expect(missing, `add a table row for each to ${file}`).toEqual([]);
});

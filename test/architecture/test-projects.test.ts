/**
 * The test projects of vitest.config.ts: every test file is in exactly one of `unit` and `e2e`, so
 * `npm run test:unit` and `npm run test:e2e` together are the whole suite and a new file cannot fall
 * out of both (nor run twice); and every entry of the e2e list still names a file, so a renamed
 * end-to-end test does not slip into the quick unit run unnoticed. Asked of Vitest itself, from the
 * same configuration `vitest run` reads.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest, type Vitest } from 'vitest/node';
import { E2E_TESTS } from '../../vitest.config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PROJECTS = ['unit', 'e2e'];

/** A test file as Vitest recognises one by default, whatever folder it is in. */
const TEST_FILE = /\.(?:test|spec)\.[cm]?[jt]sx?$/;

/** Every test file of the repository (paths relative to it), dependencies and build output aside. */
function testFiles(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return entry.name.startsWith('.') || ['node_modules', 'dist', 'coverage'].includes(entry.name)
        ? []
        : testFiles(path);
    }
    return TEST_FILE.test(entry.name) ? [relative(root, path)] : [];
  });
}

/** The globs of vitest.config.ts (`*`, `**` and `{a,b}`) as a regular expression. */
function globToRegExp(glob: string): RegExp {
  let pattern = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith('**/', i)) {
      pattern += '(?:.*/)?';
      i += 2;
    } else if (c === '*') pattern += '[^/]*';
    else if (c === '{') pattern += '(?:';
    else if (c === '}') pattern += ')';
    else if (c === ',') pattern += '|';
    else pattern += c.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

describe('the test projects', () => {
  let vitest: Vitest;
  beforeAll(async () => {
    vitest = await createVitest('test', { root, watch: false, config: join(root, 'vitest.config.ts') });
  });
  afterAll(() => vitest?.close());

  it('are unit and e2e', () => {
    expect(vitest.projects.map((project) => project.name).sort()).toEqual([...PROJECTS].sort());
  });

  it('hold every test file, each in exactly one of them', async () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(50);
    const misplaced = files
      .map((file) => ({
        file,
        projects: vitest.projects
          .filter((project) => project.matchesTestGlob(join(root, file)))
          .map((project) => project.name),
      }))
      .filter(({ projects }) => projects.length !== 1);
    expect(misplaced, 'each test file must match the include (less exclude) of one project').toEqual([]);

    // And `vitest list` agrees: the files Vitest finds are these, once each.
    const found = (await vitest.globTestSpecifications()).map((spec) => relative(root, spec.moduleId));
    expect(found.sort()).toEqual([...files].sort());
  });

  it('list only e2e files that exist', () => {
    const files = testFiles();
    const stale = Object.keys(E2E_TESTS).filter(
      (glob) => !files.some((file) => globToRegExp(glob).test(file)),
    );
    expect(stale, 'remove or rename these entries of E2E_TESTS in vitest.config.ts').toEqual([]);
  });
});

/**
 * The framework snippets of the docs are excerpts of the tested examples: every line of a code block
 * that follows a link to `examples/frameworks/<name>.ts` is a line of that file (imports aside: an
 * excerpt imports only what it shows).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const linesOf = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** Each ```ts block and the example linked in the prose just before it. */
function excerpts(markdown: string): { example: string; code: string }[] {
  const found: { example: string; code: string }[] = [];
  const pattern = /\(\.{0,2}\/?examples\/frameworks\/(\w+)\.ts\)[^`]*?```ts\n([\s\S]*?)```/g;
  for (const match of markdown.matchAll(pattern)) found.push({ example: match[1]!, code: match[2]! });
  return found;
}

describe('framework snippets in the docs', () => {
  for (const doc of ['README.md', 'docs/rest.md']) {
    it(`${doc}: each is an excerpt of the example it links to`, () => {
      const found = excerpts(read(doc));
      expect(found.length).toBeGreaterThan(0);
      for (const { example, code } of found) {
        const source = new Set(linesOf(read(`examples/frameworks/${example}.ts`)));
        for (const line of linesOf(code).filter((l) => !l.startsWith('import ')))
          expect(source, `${doc}, ${example}.ts`).toContain(line);
      }
    });
  }
});

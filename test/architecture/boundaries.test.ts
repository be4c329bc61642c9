/**
 * The house's rooms and the doors between them (docs/architecture.md): each interface stands on the
 * core (with its storage port) and the shared HTTP layer, never on another interface nor on a storage
 * adapter; only the composition (src/switchboard)
 * and the runtime adapters (src/node, src/bun) put interfaces together.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));
const INTERFACES = ['rest', 'graphql', 'webhooks', 'oauth', 'mcp'];

/** What each top-level folder may import besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  core: ['internal'],
  internal: [],
  http: ['core', 'internal'],
  // The adapters implement the storage port of the core (src/core/storage).
  storage: ['core', 'internal'],
  rest: ['core', 'http', 'internal'],
  graphql: ['core', 'http', 'internal'],
  webhooks: ['core', 'http', 'internal'],
  oauth: ['core', 'http', 'internal'],
  mcp: ['core', 'http', 'internal'],
  node: ['core', 'http', 'internal', 'graphql'],
  bun: ['core', 'http', 'internal', 'graphql'],
  // Types of the core only: the adapter drives any switchboard, as its structural interface says.
  cloudflare: ['core'],
  // The typed client reads the resource declarations' types and re-exports the webhook verifier.
  client: ['core', 'internal', 'webhooks'],
  // The console drives the admin services of webhooks and OAuth (their types), and keeps its session
  // ids hashed as OAuth keeps every secret (hashSecret).
  console: ['core', 'http', 'internal', 'webhooks', 'oauth'],
  switchboard: ['core', 'http', 'internal', 'storage', 'console', ...INTERFACES],
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name))
      : entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

const roomOf = (file: string): string => relative(src, file).split('/')[0]!.replace(/\.ts$/, '');

describe('import boundaries', () => {
  const crossings: string[] = [];
  for (const file of filesUnder(src)) {
    const room = roomOf(file);
    // The browser script of the GraphiQL page is bundled apart, never imported by the server.
    if (file.endsWith('graphiql/browser.ts') || file.endsWith('graphiql/accessible.ts')) continue;
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(
      /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g,
    )) {
      const target = resolve(dirname(file), spec!);
      if (!target.startsWith(src)) continue;
      const to = roomOf(target);
      if (to === room || room === 'index') continue;
      if (!(ALLOWED[room] ?? []).includes(to))
        crossings.push(`${relative(src, file)} → ${relative(src, target)}`);
    }
  }

  it('every folder imports only the rooms it stands on; no interface imports another', () => {
    expect(crossings).toEqual([]);
  });

  it('knows every top-level folder', () => {
    const rooms = readdirSync(src, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(rooms.filter((r) => !(r in ALLOWED))).toEqual([]);
  });
});

import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import { graphiqlAssets } from './scripts/graphiql-assets.mjs';

/**
 * One entry per public building block; each becomes a subpath export in package.json
 * (`switchboard-kit/node` → `dist/node/index.{js,cjs,d.ts,d.cts}`).
 */
export const entries = {
  index: 'src/index.ts',
  'node/index': 'src/node/index.ts',
  'bun/index': 'src/bun/index.ts',
  'cloudflare/index': 'src/cloudflare/index.ts',
  'storage/memory/index': 'src/storage/memory/index.ts',
  'storage/testing/index': 'src/storage/testing/index.ts',
  'storage/postgres/index': 'src/storage/postgres/index.ts',
  'graphql/index': 'src/graphql/index.ts',
  'rest/index': 'src/rest/index.ts',
  'oauth/index': 'src/oauth/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
  'client/index': 'src/client/index.ts',
  'console/index': 'src/console/index.ts',
  'mcp/index': 'src/mcp/index.ts',
};

export default defineConfig(async () => {
  // GraphiQL's page files, bundled into a module the GraphQL handler imports on a browser's first visit.
  await graphiqlAssets();
  return {
    entry: entries,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'es2022',
    platform: 'neutral',
    splitting: true,
    treeshake: true,
    // Dependencies stay external; `node:*` is only imported by the Node adapter.
    external: [/^node:/],
    // A source map of GraphiQL's bundled strings maps nothing useful and would double the package.
    async onSuccess() {
      for (const file of await readdir('dist')) {
        if (!file.startsWith('assets.generated-')) continue;
        if (file.endsWith('.map')) await rm(`dist/${file}`);
        else
          await writeFile(
            `dist/${file}`,
            (await readFile(`dist/${file}`, 'utf8')).replace(/\n\/\/# sourceMappingURL=.*/g, ''),
          );
      }
    },
  };
});

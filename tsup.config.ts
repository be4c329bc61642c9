import { defineConfig } from 'tsup';

/**
 * One entry per public building block; each becomes a subpath export in package.json
 * (`switchboard-kit/node` → `dist/node/index.{js,cjs,d.ts,d.cts}`).
 */
export const entries = {
  index: 'src/index.ts',
  'node/index': 'src/node/index.ts',
  'storage/memory/index': 'src/storage/memory/index.ts',
  'storage/testing/index': 'src/storage/testing/index.ts',
  'storage/postgres/index': 'src/storage/postgres/index.ts',
  'graphql/index': 'src/graphql/index.ts',
  'rest/index': 'src/rest/index.ts',
  'oauth/index': 'src/oauth/index.ts',
  'webhooks/index': 'src/webhooks/index.ts',
};

export default defineConfig({
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
});

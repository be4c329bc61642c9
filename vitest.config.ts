import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { defineConfig } from 'vitest/config';
import { graphiqlAssets } from './scripts/graphiql-assets.mjs';

// graphql's CommonJS build, the one Node itself loads for `import 'graphql'` (the package has no exports map).
// Tests run the sources, whose GraphiQL page imports the bundled files.
await graphiqlAssets();

const graphqlRoot = dirname(createRequire(import.meta.url).resolve('graphql'));

export default defineConfig({
  // Vite would give source files graphql's ESM build (the `module` field) while packages that `require`
  // it (graphql-jit) get the CommonJS build: two copies whose classes fail each other's instanceof
  // checks. Every import of graphql, and of its folders, goes to the CommonJS build, as under Node.
  resolve: {
    alias: [
      {
        find: /^graphql(\/(?:error|execution|language|subscription|type|utilities|validation))?$/,
        replacement: `${graphqlRoot}$1/index.js`,
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // A throwaway PostgreSQL for the PostgreSQL adapter's tests (or SWITCHBOARD_TEST_DATABASE_URL).
    globalSetup: ['test/setup/postgres.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Tests start real servers on loopback ports; keep the 2-core CI machine responsive.
    maxWorkers: 2,
    // Packages that import graphql are inlined so the alias above reaches their imports too.
    server: { deps: { inline: [/@graphql-tools\//, /graphql-ws/, /graphql-yoga/, /@envelop\//] } },
    benchmark: { include: ['test/bench/**/*.bench.ts'] },
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A throwaway PostgreSQL for the PostgreSQL adapter's tests (or SWITCHBOARD_TEST_DATABASE_URL).
    globalSetup: ['test/setup/postgres.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Tests start real servers on loopback ports; keep the 2-core CI machine responsive.
    maxWorkers: 2,
    // Source files get graphql's ESM build while externalised packages would get its CommonJS build: two
    // copies whose classes fail each other's instanceof checks. Inlining the GraphQL packages (and yoga,
    // for the benchmark) gives one.
    server: { deps: { inline: [/@graphql-tools\//, /graphql-ws/, /graphql-yoga/, /@envelop\//] } },
    benchmark: { include: ['test/bench/**/*.bench.ts'] },
  },
});

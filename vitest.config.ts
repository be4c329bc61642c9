import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { graphiqlAssets } from './scripts/graphiql-assets.mjs';

// graphql's CommonJS build, the one Node itself loads for `import 'graphql'` (the package has no exports map).
// Tests run the sources, whose GraphiQL page imports the bundled files.
await graphiqlAssets();

const graphqlRoot = dirname(createRequire(import.meta.url).resolve('graphql'));

/**
 * The end-to-end test files, each with why: they start other processes (the example server, other
 * runtimes, compilers and interpreters), drive a browser, or run the built package (dist/, so they need
 * `npm run build` first). They make the `e2e` project; every other test file is in `unit`, which runs
 * the sources in-process (PostgreSQL included) and finishes in well under a minute. A new test file
 * lands in `unit` unless it is listed here; test/architecture/test-projects.test.ts checks that every
 * test file is in exactly one project and that every entry here still names a file.
 */
export const E2E_TESTS: Readonly<Record<string, string>> = {
  'test/**/deno.test.ts': 'runs the built package (or a fixture of it) on Deno',
  'test/bun/bun.test.ts': 'runs the built package on Bun',
  'test/cloudflare/workerd.test.ts': 'runs the built package in workerd, the Cloudflare Workers runtime',
  'test/runtimes/node-versions.test.ts':
    'runs the built package on every supported Node line (downloads them)',
  'test/graphql/compiled.test.ts': 'runs GraphQL in a Node process without code generation, and on Deno',
  'test/pages/pages.test.ts': 'drives the GraphiQL and sign-in pages in Chromium',
  'test/pages/console.test.ts': 'drives the console in Chromium',
  'test/pages/console-clients.test.ts': "drives the console's OAuth client pages in Chromium",
  'test/pages/console-access.test.ts': "drives the console's API key, grant and account pages in Chromium",
  'test/pages/console-webhooks.test.ts':
    "drives the console's webhook pages in Chromium against a failing receiver",
  'test/mcp/conformance.test.ts':
    "runs the MCP project's conformance suite as a process (Node 22 or later) against /mcp",
  'test/mcp/sdk-oauth-browser.test.ts': 'drives the sign-in and consent pages in Chromium for an MCP agent',
  'test/examples/*.test.ts': 'starts the example server (`npm start`) as a process',
  'test/client/client.test.ts': 'starts the example server as a process',
  'test/storage/postgres-multi-instance.test.ts':
    'three example-server processes on one database, one killed',
  'test/storage/event-feed-multi-instance.test.ts':
    'three example-server processes on one database, read as one event feed',
  'test/webhooks/crash-recovery.test.ts': 'dispatcher processes killed and restarted on one database',
  'test/webhooks/example-receiver.test.ts': 'starts examples/webhook-receiver as a process',
  'test/webhooks/other-languages.test.ts': "runs the docs' webhook verifiers in Python and Go",
  'test/frameworks/{express,fastify,hono}.test.ts': 'the framework examples, on the built package',
  'test/package/consumer-types.test.ts': 'packs the package and type-checks a consumer project with tsc',
  'test/docs/code-blocks.test.ts': "compiles every docs code block against the built package's types",
  'test/docs/run-blocks.test.ts':
    'runs the docs blocks marked to run with tsx on the built package, some against the example server',
};

const e2eTests = Object.keys(E2E_TESTS);

/** What both projects share: the graphql alias and inlining below, and the timeouts. */
const shared = {
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
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Packages that import graphql are inlined so the alias above reaches their imports too.
    server: { deps: { inline: [/@graphql-tools\//, /graphql-ws/, /graphql-yoga/, /@envelop\//] } },
  },
};

export default defineConfig({
  resolve: shared.resolve,
  test: {
    ...shared.test,
    // A throwaway PostgreSQL for the PostgreSQL adapter's tests (or SWITCHBOARD_TEST_DATABASE_URL).
    // Declared here, on the root, it runs once for whichever projects run and both share its server.
    globalSetup: ['test/setup/postgres.ts'],
    // Tests start real servers on loopback ports; keep the 2-core CI machine responsive.
    maxWorkers: 2,
    // `vitest run --project unit` (npm run test:unit) for quick feedback; `npm test` runs both.
    projects: [
      {
        resolve: shared.resolve,
        test: {
          ...shared.test,
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...e2eTests],
          // Each worker keeps its modules from one file to the next instead of loading the library
          // afresh for every file: half the CPU time of the run, most of it spent importing. The files
          // share no state that matters (each builds its own switchboard, storage and servers, and
          // restores what it stubs); they pass in any order (`--sequence.shuffle.files`).
          isolate: false,
          // The benchmarks (`npm run bench`) belong to e2e alone, so they run once.
          benchmark: { include: [] },
        },
      },
      {
        resolve: shared.resolve,
        test: {
          ...shared.test,
          name: 'e2e',
          include: e2eTests,
          benchmark: { include: ['test/bench/**/*.bench.ts'] },
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Tests start real servers on loopback ports; keep the 2-core CI machine responsive.
    maxWorkers: 2,
    benchmark: { include: ['test/bench/**/*.bench.ts'] },
  },
});

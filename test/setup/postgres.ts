/**
 * vitest globalSetup: gives the PostgreSQL tests a server. With SWITCHBOARD_TEST_DATABASE_URL set it
 * uses that server (the role must be allowed to create databases); otherwise it starts a throwaway
 * cluster on a free loopback port and removes it at the end.
 *
 * The cluster starts in the background, so test runs that never touch PostgreSQL do not wait for it;
 * `test/setup/database.ts` waits until it accepts connections.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort, removeCluster, removeWhenOrphaned, startCluster, stopCluster } from './cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the test server's `postgres` database. */
    postgresUrl: string;
    /** When the cluster could not start, a file there named `error` says why. */
    postgresStateDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.SWITCHBOARD_TEST_DATABASE_URL;
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-pg-'));
  project.provide('postgresStateDir', dir);
  if (external) {
    project.provide('postgresUrl', external);
    return () => removeCluster(dir);
  }
  const port = await freePort();
  project.provide('postgresUrl', `postgres://postgres@127.0.0.1:${port}/postgres`);
  removeWhenOrphaned(dir);
  const started = startCluster({ dir, port, fast: true }).catch(async (error: unknown) => {
    await writeFile(join(dir, 'error'), String((error as Error).message ?? error));
    return undefined;
  });
  return async () => {
    const cluster = await started;
    if (cluster) await stopCluster(cluster.dataDir, { mode: 'immediate' });
    await removeCluster(dir);
  };
}

/**
 * A database of its own for the PostgreSQL round: a throwaway one on the server DATABASE_URL names,
 * or else a throwaway cluster started with the test machinery (test/setup/cluster.ts). The cluster
 * keeps PostgreSQL's durable defaults (fsync on), so writes cost what they cost in production.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { removeCluster, removeWhenOrphaned, startCluster, stopCluster } from '../../setup/cluster.js';

export interface BenchDatabase {
  readonly url: string;
  /** Drops the database, or stops and removes the cluster. */
  close(): Promise<void>;
}

export async function openBenchDatabase(serverUrl: string | undefined): Promise<BenchDatabase> {
  return serverUrl ? throwawayDatabase(serverUrl) : throwawayCluster();
}

async function throwawayDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `switchboard_bench_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    close: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function throwawayCluster(): Promise<BenchDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-bench-pg-'));
  removeWhenOrphaned(dir);
  const cluster = await startCluster({ dir });
  return {
    url: cluster.url,
    async close() {
      await stopCluster(cluster.dataDir);
      await removeCluster(dir);
    },
  };
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A PostgreSQL for development, in `.pgdata/` at the repository root (git-ignored):
 *
 *   npm run db:start   # creates the cluster on first use, starts it on 127.0.0.1:54329
 *   npm run db:stop
 *
 * Then `SWITCHBOARD_TEST_DATABASE_URL=… npm test` reuses it for the tests, and
 * `DATABASE_URL=… npm start` runs the example server on it. Set PGPORT to use another port.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster, stopCluster } from './cluster.js';

const dir = join(fileURLToPath(new URL('../..', import.meta.url)), '.pgdata');
const port = Number(process.env.PGPORT ?? 54329);
const command = process.argv[2];

if (command === 'start') {
  if (existsSync(join(dir, 'data', 'postmaster.pid'))) {
    process.stdout.write(`PostgreSQL already runs from ${dir} (npm run db:stop to stop it).\n`);
  } else {
    const cluster = await startCluster({ dir, port });
    process.stdout.write(
      [
        `PostgreSQL ${dir} is listening on 127.0.0.1:${cluster.port}.`,
        '',
        `  export SWITCHBOARD_TEST_DATABASE_URL=${cluster.url}`,
        `  export DATABASE_URL=${cluster.url}`,
        '',
        'Stop it with: npm run db:stop',
        '',
      ].join('\n'),
    );
  }
} else if (command === 'stop') {
  await stopCluster(join(dir, 'data'));
  process.stdout.write('PostgreSQL stopped.\n');
} else {
  process.stderr.write('usage: tsx test/setup/db.ts start|stop\n');
  process.exit(64);
}

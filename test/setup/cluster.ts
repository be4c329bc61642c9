/**
 * Starts and stops a throwaway PostgreSQL cluster from the server binaries Debian's `postgresql`
 * package installs (`/usr/lib/postgresql/<major>/bin`), or from whatever `initdb` is on the PATH.
 * Loopback only, trust authentication, no Unix socket. As root it runs the server as the `postgres`
 * user, because PostgreSQL refuses to run as root.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Cluster {
  readonly dataDir: string;
  readonly port: number;
  /** Superuser URL of the `postgres` database. */
  readonly url: string;
}

export interface ClusterOptions {
  /** Where the cluster lives; created when missing, reused when it already holds a cluster. */
  readonly dir: string;
  /** A free one is picked when omitted. */
  readonly port?: number;
  /** Trade durability for speed; right for tests, wrong for anything you want to keep. */
  readonly fast?: boolean;
}

/** The directory holding `initdb` and `pg_ctl`: the newest Debian major version, else the PATH. */
export function findServerBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(root, majors[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const asRoot = (): boolean => process.getuid?.() === 0;

/** Runs a server binary, as `postgres` when we are root. */
async function pg(bin: string, tool: string, args: string[]): Promise<string> {
  const command = join(bin, tool);
  const [file, argv] = asRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const { stdout } = await run(file, argv, { maxBuffer: 1 << 20 });
  return stdout;
}

async function ownByPostgres(path: string): Promise<void> {
  if (!asRoot()) return;
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  await chown(path, Number(stdout.trim()), Number(gid.trim()));
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const bin = findServerBinaries();
  if (!bin) {
    throw new Error(
      'PostgreSQL server binaries not found. Install them (Debian/Ubuntu: apt-get install postgresql) ' +
        'or set SWITCHBOARD_TEST_DATABASE_URL to a server you already run.',
    );
  }
  const dataDir = join(options.dir, 'data');
  const port = options.port ?? (await freePort());
  await mkdir(options.dir, { recursive: true });
  await ownByPostgres(options.dir);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    await pg(bin, 'initdb', [
      '--pgdata',
      dataDir,
      '--username=postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--locale=C.UTF-8',
      ...(options.fast ? ['--no-sync'] : []),
    ]);
  }
  const settings = [
    '-c listen_addresses=127.0.0.1',
    `-c port=${port}`,
    "-c unix_socket_directories=''",
    '-c max_connections=300',
    ...(options.fast ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'] : []),
  ];
  await pg(bin, 'pg_ctl', [
    'start',
    '--pgdata',
    dataDir,
    '--wait',
    '--log',
    join(options.dir, 'server.log'),
    '-o',
    settings.join(' '),
  ]);
  return { dataDir, port, url: `postgres://postgres@127.0.0.1:${port}/postgres` };
}

export async function stopCluster(
  dataDir: string,
  options: { mode?: 'fast' | 'immediate' } = {},
): Promise<void> {
  const bin = findServerBinaries();
  if (!bin) return;
  await pg(bin, 'pg_ctl', ['stop', '--pgdata', dataDir, '--wait', '--mode', options.mode ?? 'fast']).catch(
    () => {},
  );
}

/**
 * Stops and removes the cluster if this process dies without its teardown (killed test run), so no
 * server is left behind. A detached shell polls this process and cleans up once it is gone.
 */
export function removeWhenOrphaned(dir: string): void {
  const bin = findServerBinaries();
  if (!bin) return;
  const stop = `${asRoot() ? 'runuser -u postgres -- ' : ''}'${join(bin, 'pg_ctl')}' stop -D '${join(dir, 'data')}' -m immediate`;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; ${stop} >/dev/null 2>&1; rm -rf '${dir}'`;
  spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
}

export async function removeCluster(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

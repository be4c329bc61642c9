import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { build } from 'esbuild';
import { root } from './deno.js';

export { root };

/** The admin API key the smoke suite's Worker gets through a binding. */
export const WORKERD_ADMIN_KEY = 'sbk_workerd_smoke_admin_key_0123456789abcdef';

/** A workerd process serving the app Worker and the probe Worker on loopback ports. */
export interface Workerd {
  /** The app Worker: the switchboard behind `createWorker`. */
  readonly url: string;
  /** The probe Worker: `/scheduled` fires the app's cron handler, `/signature` signs on workerd. */
  readonly probeUrl: string;
  /** What workerd and the Workers printed so far (console.log, uncaught errors). */
  output(): string;
  stop(): Promise<void>;
}

/** The devDependencies that install a workerd: the newest, and the oldest build the docs support. */
export type WorkerdPackage = 'workerd' | 'workerd-oldest';

/**
 * Where the workerd binary is: the one the devDependency installs (for `workerd`, `WORKERD_BINARY` if
 * set), with its version. Throws when there is none, so a runtime missing from the matrix fails rather
 * than being skipped.
 */
export function workerdBinary(pkg: WorkerdPackage = 'workerd'): {
  path: string;
  compatibilityDate: string;
  version: string;
} {
  let found: { path: string; compatibilityDate: string; version: string };
  try {
    // The package's main module finds the binary of this platform's package, or throws saying which.
    const require = createRequire(import.meta.url);
    const workerd = require(pkg) as { default: string; compatibilityDate: string };
    const override = pkg === 'workerd' ? process.env.WORKERD_BINARY : undefined;
    found = {
      path: override ?? workerd.default,
      compatibilityDate: workerd.compatibilityDate,
      version: (require(`${pkg}/package.json`) as { version: string }).version,
    };
  } catch (error) {
    throw new Error(`No workerd: run \`npm install\` (devDependency ${pkg}). ${String(error)}`);
  }
  if (!existsSync(found.path))
    throw new Error(`No workerd binary at ${found.path}: run \`npm install\` or set WORKERD_BINARY.`);
  return found;
}

/**
 * Bundles a Worker as wrangler does (esbuild, ESM, the `workerd`/`worker`/`browser` export conditions,
 * `cloudflare:*` left to the runtime), from the built package the Worker imports.
 */
async function bundle(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    external: ['cloudflare:*'],
    // dist's entry points import shared chunks for their side effects; the package says it has none.
    logOverride: { 'ignored-bare-import': 'silent' },
    logLevel: 'error',
  });
}

/**
 * The config: the app Worker with no compatibility flag (no `nodejs_compat`) and an outbound network
 * that reaches loopback, where the test's webhook receiver listens (workerd's default reaches public
 * addresses only); the probe with a service binding to it. Both sockets on port 0: the ports chosen
 * come back on the control descriptor.
 */
function config(compatibilityDate: string, compatibilityFlags: readonly string[]): string {
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "app", worker = .app),
    (name = "probe", worker = .probe),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [
    (name = "app", address = "127.0.0.1:0", http = (), service = "app"),
    (name = "probe", address = "127.0.0.1:0", http = (), service = "probe"),
  ],
);

const app :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "${compatibilityDate}",
  compatibilityFlags = ${JSON.stringify(compatibilityFlags)},
  bindings = [(name = "SWITCHBOARD_API_KEY", text = "${WORKERD_ADMIN_KEY}")],
  globalOutbound = "loopback",
);

# Fetcher.scheduled() is experimental in workerd (\`--experimental\`); the app Worker uses nothing experimental.
const probe :Workerd.Worker = (
  modules = [(name = "probe.js", esModule = embed "probe.js")],
  compatibilityDate = "${compatibilityDate}",
  compatibilityFlags = ["service_binding_extra_handlers"],
  bindings = [(name = "APP", service = "app")],
);
`;
}

/** Options of {@link startWorkerd}. */
export interface WorkerdOptions {
  /** Whose binary runs (default `workerd`, the newest). */
  readonly workerd?: WorkerdPackage;
  /** The app Worker's compatibility date (default: the newest this workerd knows). */
  readonly compatibilityDate?: string;
  /** The app Worker's compatibility flags (default none). */
  readonly compatibilityFlags?: readonly string[];
}

/** Bundles the Workers, writes the config into a temp folder and starts workerd; resolves once it answers. */
export async function startWorkerd(options: WorkerdOptions = {}): Promise<Workerd> {
  const binary = workerdBinary(options.workerd);
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-workerd-'));
  await Promise.all([
    bundle('test/cloudflare/worker.ts', join(dir, 'worker.js')),
    bundle('test/cloudflare/probe.ts', join(dir, 'probe.js')),
    writeFile(
      join(dir, 'config.capnp'),
      config(options.compatibilityDate ?? binary.compatibilityDate, options.compatibilityFlags ?? []),
    ),
  ]);
  let output = '';
  const child = spawn(binary.path, ['serve', '--experimental', '--control-fd=3', 'config.capnp'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const ports = await listening(child, ['app', 'probe'], () => output);
    const workerd = {
      url: `http://127.0.0.1:${ports.app}`,
      probeUrl: `http://127.0.0.1:${ports.probe}`,
      output: () => output,
      stop,
    };
    const health = await fetch(`${workerd.url}/healthz`);
    if (health.status !== 200) throw new Error(`workerd answered /healthz with ${health.status}:\n${output}`);
    return workerd;
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The port of each socket, as workerd reports them on its control descriptor once listening. */
function listening(
  child: ChildProcess,
  sockets: readonly string[],
  output: () => string,
  timeoutMs = 20_000,
): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const ports: Record<string, number> = {};
    let buffered = '';
    const control = child.stdio[3] as Readable;
    const done = (): void => {
      clearTimeout(timer);
      child.off('error', failed).off('exit', exited);
      control.off('data', read);
    };
    const fail = (why: string): void => {
      done();
      reject(new Error(`workerd ${why}:\n${output()}`));
    };
    const failed = (error: Error): void => fail(`could not start (${error.message})`);
    const exited = (code: number | null, signal: string | null): void =>
      fail(`exited with ${signal ?? code} before listening`);
    const read = (chunk: Buffer): void => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line) as { event: string; socket: string; port: number };
        if (message.event === 'listen') ports[message.socket] = message.port;
      }
      if (sockets.every((s) => s in ports)) {
        done();
        resolve(ports);
      }
    };
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMs} ms`), timeoutMs);
    child.on('error', failed).on('exit', exited);
    control.on('data', read);
  });
}

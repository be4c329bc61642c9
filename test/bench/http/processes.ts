/**
 * Benchmark servers as child processes: each script is compiled to plain JavaScript first and started
 * with `node <script>.mjs` (a TypeScript loader such as tsx would also recompile the built package it
 * imports, adding its own helpers to the code measured), announces `READY <port>` on stdout, and
 * leaves when its stdin closes (so it also goes when the runner dies). A server may also answer
 * commands: `ask` writes a line to its stdin and awaits the next `REPLY <answer>` line it prints.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface ServerSpec {
  /** The name the report uses, e.g. `hono`. */
  readonly name: string;
  /** A script in this folder, e.g. `hono.ts`. */
  readonly script: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Whether it checks the bearer key (the raw server answers anyone). */
  readonly authenticates: boolean;
  /** Whether it serves Switchboard's REST API, so the runner can read its seeded client ids. */
  readonly listsClients: boolean;
  /** Flags for node itself, e.g. `--expose-gc`. */
  readonly nodeFlags?: readonly string[];
}

export interface RunningServer {
  readonly spec: ServerSpec;
  /** e.g. `http://127.0.0.1:41234` */
  readonly url: string;
  /** Sends `command` as one line and resolves with the answer of the next `REPLY <answer>` line. */
  ask(command: string, timeoutMs?: number): Promise<string>;
  /** CPU time the process has used (user + system), in µs; undefined where /proc cannot tell (not Linux). */
  cpuMicros(): number | undefined;
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('../../..', import.meta.url));
const running = new Set<() => Promise<void>>();

/** Our settings for the servers would leak into every child through the environment otherwise. */
const INHERITED = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name !== 'DATABASE_URL' && !name.startsWith('BENCH_')),
);

export async function startServer(spec: ServerSpec, timeoutMs = 60_000): Promise<RunningServer> {
  const script = await compiled(spec.script);
  const child = spawn(process.execPath, [...(spec.nodeFlags ?? []), script], {
    cwd: root,
    env: { ...INHERITED, ...spec.env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    running.delete(stop);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  // Registered before READY, so an interruption during start-up stops this one too.
  running.add(stop);
  // Keeps reading after READY too, so a chatty server never blocks on a full pipe.
  const lines = createInterface({ input: child.stdout! });
  const replies: ((answer: string) => void)[] = [];
  lines.on('line', (line) => {
    if (line.startsWith('REPLY ')) replies.shift()?.(line.slice('REPLY '.length));
  });
  const ask = (command: string, askTimeoutMs = 60_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const fail = (why: string): void => {
        clearTimeout(timer);
        child.off('exit', onExit);
        const at = replies.indexOf(answer);
        if (at >= 0) replies.splice(at, 1);
        reject(new Error(`${spec.name} (${spec.script}) ${why} (asked "${command}")`));
      };
      const onExit = (): void => fail('exited before replying');
      const timer = setTimeout(() => fail(`did not reply within ${askTimeoutMs} ms`), askTimeoutMs);
      const answer = (text: string): void => {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve(text);
      };
      if (child.exitCode !== null || child.signalCode !== null) return fail('is not running');
      child.once('exit', onExit);
      replies.push(answer);
      child.stdin!.write(`${command}\n`);
    });
  const port = await readyPort(child, lines, spec, timeoutMs);
  return { spec, url: `http://127.0.0.1:${port}`, ask, cpuMicros: () => cpuMicrosOf(child.pid), stop };
}

/** Linux's `/proc/<pid>/stat` counts in USER_HZ, which is 100 per second for every process. */
const MICROS_PER_TICK = 10_000;

function cpuMicrosOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name (in parentheses, and it may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MICROS_PER_TICK;
  } catch {
    return undefined;
  }
}

/**
 * The script as one ES module beside the sources (so packages, and this package's own name, resolve as
 * they do for the sources), with its packages left as imports: what runs is their built code as is.
 */
async function compiled(script: string): Promise<string> {
  // `../webhooks/server.ts` builds to `.build/webhooks/server.mjs`: every build stays in (ignored) .build.
  const name = script.replace(/^(\.\.\/)+/, '').replace(/\.ts$/, '.mjs');
  const outfile = fileURLToPath(new URL(`.build/${name}`, import.meta.url));
  await build({
    entryPoints: [fileURLToPath(new URL(script, import.meta.url))],
    outfile,
    bundle: true,
    packages: 'external',
    // By name, or tsconfig's `paths` would compile the sources in instead of importing the built package.
    external: ['switchboard-kit', 'switchboard-kit/*'],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  return outfile;
}

/** Stops every server still running (on error or interruption as well as at the end). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((stop) => stop()));
}

function readyPort(
  child: ChildProcess,
  lines: Interface,
  spec: ServerSpec,
  timeoutMs: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${spec.name} (${spec.script}) ${why}`));
    };
    const onExit = (code: number | null, signal: string | null): void =>
      fail(`exited before READY (${signal ?? `code ${code}`})`);
    const timer = setTimeout(() => fail(`did not print READY within ${timeoutMs} ms`), timeoutMs);
    child.once('exit', onExit);
    const onLine = (line: string): void => {
      const port = /^READY (\d+)$/.exec(line)?.[1];
      if (!port) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      lines.off('line', onLine);
      resolve(Number(port));
    };
    lines.on('line', onLine);
  });
}

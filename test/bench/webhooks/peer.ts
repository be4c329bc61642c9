/**
 * Runs the fetch loop (fetch-loop.ts) as a process of its own, the way the dispatcher runs in the
 * server's: it starts cold each round, like a fresh server does. Like the servers, it holds a pipe on
 * its stdin and leaves when that closes; `stopPeers` ends any still running on an interruption.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface PeerRun {
  /** From the first request sent to the last answer read. */
  readonly elapsedMs: number;
  /** Answers with a 2xx status. */
  readonly ok: number;
}

const root = fileURLToPath(new URL('../../..', import.meta.url));
const script = fileURLToPath(new URL('fetch-loop.ts', import.meta.url));
const running = new Set<ChildProcess>();

/** Same rule as the servers': our own settings must not leak into the child. */
const INHERITED = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name !== 'DATABASE_URL' && !name.startsWith('BENCH_')),
);

export function runFetchLoop(url: string, count: number, concurrency: number): Promise<PeerRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...INHERITED, BENCH_URL: url, BENCH_COUNT: String(count), BENCH_CONCURRENCY: String(concurrency) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  running.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      running.delete(child);
      const line = output.trim().split('\n').pop() ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as PeerRun);
      else reject(new Error(`fetch loop exited with ${signal ?? `code ${code}`}: ${output.slice(0, 300)}`));
    });
  });
}

export function stopPeers(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

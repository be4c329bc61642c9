import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface RunningExample {
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything the server has printed so far. */
  output(): string;
  /** SIGTERM, then resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `examples/server` as `npm start` would, on a free port, and waits until it listens. */
export async function startExampleServer(env: Record<string, string> = {}): Promise<RunningExample> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/server/main.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', check);
    exited.then((code) => reject(new Error(`example server exited with ${code}:\n${output}`)));
  });
  return {
    url,
    process: child,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs the example server expecting it to refuse to start; resolves with its exit code and output. */
export function runExampleServerExpectingFailure(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/server/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface RunningExample {
  readonly url: string;
  readonly process: ChildProcess;
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>;
  /** Everything the server has printed so far. */
  output(): string;
  /** SIGTERM, then resolves with the exit code. */
  stop(): Promise<number | null>;
}

interface ExampleProcess {
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
  output(): string;
}

/** Runs `examples/server` as `npm start` does, collecting what it prints on stdout and stderr. */
function spawnExample(env: Record<string, string>): ExampleProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/server/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output += chunk;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, exited, output: () => output };
}

/** Starts the example server on a free port and waits until it has printed its banner. */
export async function startExampleServer(env: Record<string, string> = {}): Promise<RunningExample> {
  const run = spawnExample({ PORT: '0', LOG_LEVEL: 'warn', ...env });
  const url = await new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const match = /listening on (http:\/\/\S+)/.exec(run.output());
      if (match) resolve(match[1]!);
    };
    run.process.stdout?.on('data', check);
    run.exited.then((code) => reject(new Error(`example server exited with ${code}:\n${run.output()}`)));
  });
  return {
    ...run,
    url,
    async stop() {
      run.process.kill('SIGTERM');
      return run.exited;
    },
  };
}

/** Runs the example server expecting it to refuse to start; resolves with its exit code and output. */
export async function runExampleServerExpectingFailure(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const run = spawnExample(env);
  return { code: await run.exited, output: run.output() };
}

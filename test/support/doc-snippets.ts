/**
 * The TypeScript blocks of the docs that claim to run, and running one as a reader would: a file of its
 * own in a project outside this repository whose node_modules holds the built package (this repository,
 * its exports on dist/) and its dependencies, started with tsx.
 *
 * A block says it runs with an HTML comment on the line right above its fence (among its check markers):
 *
 *   <!-- run -->              runs to its end, exits 0 and prints something
 *   <!-- run: npm start -->   the same, against the example server (`npm start`): its base URL stands for
 *                             http://127.0.0.1:4000, and KEY and SWITCHBOARD_API_KEY hold its admin key
 *   <!-- run: serves -->      starts a server of its own on port 4000 (given a free one) and prints its
 *                             URL and admin key; it must then answer with that key
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export type RunMode = 'exits' | 'npm start' | 'serves';

export interface RunnableSnippet {
  /** The markdown file, relative to the repository. */
  readonly markdown: string;
  /** 1-based line of the block's first line of code. */
  readonly line: number;
  readonly mode: RunMode;
  readonly code: string;
}

const FENCE = /^(`{3,})\s*(ts|typescript)\s*$/;
const RUN = /<!--\s*run(?::\s*([^-]*?))?\s*-->/;

/** The markdown files a runnable block may be in: README.md and docs/. */
export function markdownFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name))
    .sort();
  return ['README.md', ...docs];
}

/** The blocks of `markdown` marked `<!-- run … -->` in the comments stacked right above their fence. */
export function runnableSnippets(markdown: string): RunnableSnippet[] {
  const lines = readFileSync(join(root, markdown), 'utf8').split('\n');
  const snippets: RunnableSnippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!);
    if (!fence) continue;
    let end = i + 1;
    while (end < lines.length && lines[end]!.trim() !== fence[1]) end++;
    let above = i - 1;
    let mode: RunMode | undefined;
    while (above >= 0 && lines[above]!.trim().startsWith('<!--')) {
      const run = RUN.exec(lines[above]!);
      if (run) {
        const kind = run[1]?.trim() ?? '';
        if (kind !== '' && kind !== 'npm start' && kind !== 'serves')
          throw new Error(`${markdown}:${above + 1}: unknown run marker "${kind}"`);
        mode = kind === '' ? 'exits' : (kind as RunMode);
      }
      above--;
    }
    if (mode) snippets.push({ markdown, line: i + 2, mode, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return snippets;
}

/** A reader's project: node_modules with switchboard-kit (this repository), its dependencies and tsx. */
export function readerProject(): { readonly dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-reader-'));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const link = (name: string, target: string) => {
    const path = join(dir, 'node_modules', name);
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(target, path, 'dir');
  };
  link('switchboard-kit', root);
  // What the docs have the reader install: zod (a peer; npm installs it by itself) and hash-wasm.
  for (const name of [...Object.keys(manifest.dependencies), 'zod', 'hash-wasm', 'tsx'])
    link(name, join(root, 'node_modules', name));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'reader', type: 'module', private: true }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface SnippetRun {
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
  output(): string;
}

/** Starts `code` as `<dir>/<name>.ts` with tsx, in its own process group. */
export function startSnippet(
  dir: string,
  name: string,
  code: string,
  env: Record<string, string> = {},
): SnippetRun {
  const file = join(dir, `${name}.ts`);
  writeFileSync(file, code);
  return startGroup(process.execPath, ['--import', 'tsx', file], {
    cwd: dir,
    env: { NODE_ENV: 'development', ...env },
  });
}

/** Starts a command in its own process group (for {@link stopGroup}), collecting what it prints. */
export function startGroup(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string> },
): SnippetRun {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, exited, output: () => output };
}

/** Ends a process group started detached, and waits for its leader. */
export async function stopGroup(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return; // gone already
  }
  await exited;
}

/** Resolves once `read()` matches `pattern` (its match), or rejects after `ms` with what was read. */
export async function waitFor(read: () => string, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  const until = Date.now() + ms;
  for (;;) {
    const match = pattern.exec(read());
    if (match) return match;
    if (Date.now() > until) throw new Error(`waited ${ms} ms for ${pattern}; got:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Every TypeScript block in README.md and docs/ (fenced `ts`, `typescript` or `tsx`) compiles against
 * the built package, dist/*.d.ts, with this repository's strict compiler options, as it would in a
 * user's project. Each block is a module of its own; one TypeScript program checks them all.
 *
 * A block that uses names it does not define says so in an HTML comment (the rendered page hides it)
 * on the line right above its fence:
 *
 *   <!-- check: switchboard, storage -->   names from PRELUDES below, declared before the block
 *   <!-- prelude: declare function saveToMyQueue(event: unknown): Promise<void>; -->
 *                                          this block's own declarations, prepended as written
 *   <!-- check: skip (why it cannot compile) -->   left out; the reason is required
 *
 * Both kinds may stand above one block. Pseudo-code is not TypeScript: fence it as `text`. A relative
 * import (`'../src/my-storage.js'`) names a file of the reader's own project and is typed `any`.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The names a block may take with `<!-- check: name, … -->`, and what each one is. */
const PRELUDES: Readonly<Record<string, string>> = {
  switchboard: `declare const switchboard: import('switchboard-kit').Switchboard;`,
  storage: `declare const storage: import('switchboard-kit').Storage;`,
  runtime: `declare const runtime: import('switchboard-kit').Runtime;`,
  domain: `declare const domain: import('switchboard-kit').Domain;`,
  bus: `declare const bus: import('switchboard-kit').EventBus;`,
  authenticate: `declare const authenticate: import('switchboard-kit').Authenticate;`,
  request: 'declare const request: Request;',
  rest: `declare const rest: import('switchboard-kit').FetchHandler;`,
  graphql: `declare const graphql: import('switchboard-kit').FetchHandler;`,
  // The parts of the runtimes' globals the docs use: this repository installs neither's types.
  Deno: `declare const Deno: {
    serve(handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>): unknown;
    serve(options: { port?: number; hostname?: string }, handler: (request: Request, info: { remoteAddr: { hostname: string } }) => Response | Promise<Response>): unknown;
    upgradeWebSocket(request: Request, options?: { protocol?: string; idleTimeout?: number }): { socket: WebSocket; response: Response };
    env: { get(name: string): string | undefined };
  };`,
  Bun: `declare const Bun: {
    serve(options: {
      port?: number;
      hostname?: string;
      fetch(request: Request, server: import('switchboard-kit/bun').BunServer): Response | Promise<Response> | undefined;
      websocket?: import('switchboard-kit/bun').BunWebSocketHandler;
    }): unknown;
    env: Record<string, string | undefined>;
  };`,
};

/** Declarations of modules only a runtime provides (`cloudflare:workers`). */
const SHIMS = [join(root, 'test/cloudflare/cloudflare-workers.d.ts')];

const LANGUAGES: Readonly<Record<string, '.ts' | '.tsx'>> = { ts: '.ts', typescript: '.ts', tsx: '.tsx' };
const FENCE = /^( *)(`{3,}|~{3,})\s*([^\s`{]*)/;
const MARKER = /<!--\s*(check|prelude):([\s\S]*?)-->/g;
const MARKER_LINE = /^\s*<!--\s*(check|prelude):/;

interface Block {
  /** The markdown file, relative to the repository. */
  readonly markdown: string;
  /** 1-based line of the block's first line of code. */
  readonly line: number;
  /** 1-based line of the comment above the fence, where errors in the prelude are reported. */
  readonly markerLine: number;
  readonly extension: '.ts' | '.tsx';
  readonly prelude: string;
  readonly code: string;
}

interface Scan {
  readonly blocks: Block[];
  readonly skipped: number;
  /** Wrong markers (an unknown name, a skip without reason, a marker above no block), as `file:line: …`. */
  readonly problems: string[];
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name))
    .sort();
  return ['README.md', ...docs];
}

/** Where the HTML comments that end on the line right above `fence` start (several may stack). */
function commentsStart(lines: readonly string[], fence: number): number {
  let start = fence;
  while (start > 0 && lines[start - 1]!.trim().endsWith('-->')) {
    let open = start - 1;
    while (open >= 0 && !lines[open]!.trimStart().startsWith('<!--')) open--;
    if (open < 0) break;
    start = open;
  }
  return start;
}

interface Markers {
  readonly names: string[];
  readonly declarations: string[];
  /** The reason a block is skipped: `''` when the skip gives none, undefined when it is checked. */
  readonly skip: string | undefined;
}

/** The `check:` and `prelude:` comments in `text`. */
function markersIn(text: string): Markers {
  const names: string[] = [];
  const declarations: string[] = [];
  let skip: string | undefined;
  for (const [, kind, body = ''] of text.matchAll(MARKER)) {
    const content = body.trim();
    if (kind === 'prelude') declarations.push(content);
    else if (content.startsWith('skip')) skip = /^skip\s*\((.*)\)$/.exec(content)?.[1]?.trim() ?? '';
    else names.push(...content.split(/[\s,]+/).filter(Boolean));
  }
  return { names, declarations, skip };
}

function scan(markdown: string): Scan {
  const lines = readFileSync(join(root, markdown), 'utf8').split('\n');
  const blocks: Block[] = [];
  const problems: string[] = [];
  const markers = new Set<number>();
  let skipped = 0;
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!);
    if (!fence) {
      if (MARKER_LINE.test(lines[i]!)) markers.add(i);
      continue;
    }
    const [, indent = '', ticks = '', info = ''] = fence;
    const close = new RegExp(`^ *${ticks[0] === '`' ? '`' : '~'}{${ticks.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end]!)) end++;
    const extension = LANGUAGES[info.toLowerCase()];
    if (extension) {
      const start = commentsStart(lines, i);
      for (let l = start; l < i; l++) markers.delete(l);
      const { names, declarations, skip } = markersIn(lines.slice(start, i).join('\n'));
      const problem = (message: string) => problems.push(`${markdown}:${start + 1}: ${message}`);
      if (skip === '') problem('a skip needs its reason: <!-- check: skip (why) -->');
      const known = names.filter((name) => Object.hasOwn(PRELUDES, name));
      for (const name of names.filter((name) => !known.includes(name))) {
        problem(`no prelude '${name}'; there are ${Object.keys(PRELUDES).join(', ')}`);
      }
      if (skip !== undefined) skipped++;
      else {
        const code = lines
          .slice(i + 1, end)
          .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()));
        blocks.push({
          markdown,
          line: i + 2,
          markerLine: start + 1,
          extension,
          prelude: [...known.map((name) => PRELUDES[name]), ...declarations].join('\n'),
          code: code.join('\n'),
        });
      }
    }
    i = end;
  }
  for (const line of markers) {
    problems.push(`${markdown}:${line + 1}: this marker is not on the line right above a TypeScript block`);
  }
  return { blocks, skipped, problems };
}

/** The repository's compiler options, with `switchboard-kit` (and `npm:switchboard-kit`) on dist/. */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: { types?: string } }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string' || !target.import?.types) continue;
    const name = join('switchboard-kit', subpath);
    const types = join(root, target.import.types);
    if (!existsSync(types)) throw new Error(`${target.import.types} is missing: run \`npm run build\` first`);
    paths[name] = [types];
    paths[`npm:${name}`] = [types];
  }
  return {
    ...config!.options,
    paths,
    noEmit: true,
    moduleDetection: ts.ModuleDetectionKind.Force,
    jsx: ts.JsxEmit.ReactJSX,
  };
}

/** TS2307 for `./…` or `../…`: the reader's own file, which the docs cannot have. */
function isReadersOwnModule(diagnostic: ts.Diagnostic): boolean {
  return diagnostic.code === 2307 && /^Cannot find module '\.\.?\//.test(String(diagnostic.messageText));
}

/** Checks every block in one program; the errors of each markdown file, as `file:line: message`. */
function check(scans: ReadonlyMap<string, Scan>, output: string): Map<string, string[]> {
  const written = new Map<string, { block: Block; preludeLines: number }>();
  for (const { blocks } of scans.values()) {
    for (const block of blocks) {
      const fileName = join(output, `${block.markdown}.${block.line}${block.extension}`);
      const prelude = block.prelude ? `${block.prelude}\n` : '';
      mkdirSync(dirname(fileName), { recursive: true });
      writeFileSync(fileName, prelude + block.code);
      written.set(fileName, { block, preludeLines: prelude.split('\n').length - 1 });
    }
  }
  const program = ts.createProgram([...written.keys(), ...SHIMS], compilerOptions());
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  if (global.length > 0) throw new Error(ts.formatDiagnostics(global, ts.createCompilerHost({})));
  const errors = new Map([...scans].map(([file, { problems }]) => [file, [...problems]]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    if (isReadersOwnModule(diagnostic)) continue;
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const source = diagnostic.file && written.get(diagnostic.file.fileName);
    if (!source || diagnostic.start === undefined) {
      throw new Error(
        `${diagnostic.file ? relative(root, diagnostic.file.fileName) : 'program'}: ${message}`,
      );
    }
    const { block, preludeLines } = source;
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start);
    const at =
      line < preludeLines ? `${block.markerLine}: (in the prelude)` : `${block.line + line - preludeLines}:`;
    errors.get(block.markdown)!.push(`${block.markdown}:${at} ${message}`);
  }
  const lineOf = (error: string): number => Number(error.split(':')[1]);
  for (const list of errors.values()) list.sort((a, b) => lineOf(a) - lineOf(b));
  return errors;
}

const scans = new Map(markdownFiles().map((file) => [file, scan(file)]));
mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
// Inside the repository, so the blocks' imports (zod, hono, express …) resolve from its node_modules.
const output = mkdtempSync(join(root, 'node_modules/.cache/doc-blocks-'));
let errors = new Map<string, string[]>();

beforeAll(() => {
  errors = check(scans, output);
}, 60_000);

afterAll(() => rmSync(output, { recursive: true, force: true }));

describe('TypeScript blocks in the docs compile against the built package', () => {
  for (const [file, { blocks, skipped, problems }] of scans) {
    if (blocks.length === 0 && skipped === 0 && problems.length === 0) continue;
    it(`${file} (${blocks.length} blocks${skipped ? `, ${skipped} skipped` : ''})`, () => {
      expect(errors.get(file)).toEqual([]);
    });
  }
});

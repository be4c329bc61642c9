/**
 * The README's tour, as a newcomer follows it: every command of its block, in order, with bash, against
 * a real `npm start` on a free port; then the typed-client snippet under it, against the same server and
 * the built package. A placeholder `export NAME=prefix…` takes the first `prefix…` word of the output
 * before it (the key from the banner, the secret and the id from the answers), as the reader copies
 * it. A command ending in `&` runs in the background, as in the reader's terminal, until the end.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  readerProject,
  runnableSnippets,
  type SnippetRun,
  startGroup,
  startSnippet,
  stopGroup,
  waitFor,
} from '../support/doc-snippets.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What each command of the tour must print, found by a part of the command. Every command needs one. */
const EXPECTED: readonly [command: RegExp, output: RegExp][] = [
  [/webhook-endpoints/, /"secret":"whsec_/],
  [/clients\?city=London/, /"name":"Ada Lovelace"/],
  [/"email":"joan@example.com"/, /^HTTP\/1\.1 201[\s\S]*^location: \/api\/v2\/clients\/cli_/im],
  [/-X PATCH/, /"city":"Cambridge"/],
  [/"total":\{"amount":"42.00"/, /"status":"pending"/],
  [/\$ID\/orders$/, /"total":1\b/],
  [/clients\(limit: 3\)/, /"data":\{"clients":\[\{"id":"cli_/],
  [/support-bot\/messages/, /"content":"Is my order on its way\?"/],
  [/tools\/call/, /Ada Lovelace/],
  [/oauth-authorization-server/, /"issuer":"http:\/\/127\.0\.0\.1:/],
];

/** The commands of the README's tour block: continuation lines joined, comments and blank lines left out. */
function tourCommands(): string[] {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const block = /## A tour in two terminals[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no "## A tour in two terminals" with a sh block');
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const bash = (command: string, env: Record<string, string>) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      'bash',
      ['-c', command],
      { cwd: root, env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });

interface Background {
  readonly command: string;
  readonly process: ChildProcess;
  readonly exited: Promise<unknown>;
  output(): string;
}

let server: Background;
const background: Background[] = [];
const project = readerProject();
let snippet: SnippetRun | undefined;

/** A command of the tour left running (the server, the receiver, a subscription), named by its text. */
const inBackground = (command: string, args: string[], env: Record<string, string>): Background => ({
  command: args.at(-1)!,
  ...startGroup(command, args, { cwd: root, env }),
});

beforeAll(async () => {
  const [first] = tourCommands();
  expect(first?.replace(/#.*/, '').trim()).toBe('npm start');
  server = inBackground('npm', ['start'], { PORT: '0', LOG_LEVEL: 'warn' });
  await waitFor(server.output, /Press Ctrl\+C to stop/, 60_000);
}, 90_000);

afterAll(async () => {
  for (const job of [...background, ...(snippet ? [snippet] : [])]) await stopGroup(job.process, job.exited);
  if (server) await stopGroup(server.process, server.exited);
  project.remove();
}, 30_000);

it('runs every command of the README tour, in order, as written', async () => {
  const url = /listening on (http:\/\/\S+)/.exec(server.output())![1]!;
  const receiverPort = await freePort();
  // The receiver reads PORT; the tour's commands name the default ports.
  const env: Record<string, string> = { PORT: String(receiverPort) };
  const localise = (command: string) =>
    command
      .replaceAll('http://127.0.0.1:4000', url)
      .replaceAll('127.0.0.1:4001', `127.0.0.1:${receiverPort}`);
  let previous = server.output();
  const ran: string[] = [];

  for (const line of tourCommands().slice(1)) {
    const placeholder = /^export (\w+)=(\w+_)…/.exec(line);
    if (placeholder) {
      const [, name, prefix] = placeholder;
      const value = new RegExp(`${prefix}[^\\s"',;]+`).exec(previous)?.[0];
      expect(value, `${line}: no ${prefix}… in the output before it:\n${previous}`).toBeDefined();
      env[name!] = value!;
      continue;
    }
    const command = localise(line).replace(/^curl /, 'curl --fail-with-body -sS ');
    if (/&\s*(#.*)?$/.test(command)) {
      const job = inBackground('bash', ['-c', command.replace(/&\s*(#.*)?$/, '')], env);
      background.push(job);
      // The receiver says it listens; a subscription's stream opens with a comment line.
      await waitFor(job.output, /\S/, 30_000);
      continue;
    }
    const { code, output } = await bash(command, env);
    expect(code, `${line}\n${output}`).toBe(0);
    const expected = EXPECTED.find(([part]) => part.test(line.replace(/#.*$/, '').trim()));
    expect(expected, `the test expects nothing of: ${line}`).toBeDefined();
    expect(output, line).toMatch(expected![1]);
    ran.push(line);
    previous = output;
  }
  expect(ran).toHaveLength(EXPECTED.length);

  const [receiver, subscription] = background;
  expect(receiver?.command).toContain('examples/webhook-receiver/main.ts');
  // The signed order.created reached the receiver, which verified it.
  await waitFor(receiver!.output, /"msg":"received".*"event":"order\.created"/, 20_000);
  expect(receiver!.output()).not.toContain('"msg":"rejected"');
  // The message sent after subscribing arrived on the stream.
  await waitFor(subscription!.output, /"onNewMessage":\{"content":"Is my order on its way\?"\}/, 10_000);
}, 180_000);

it("runs the README's typed-client snippet against the same server, on the built package", async () => {
  const [client] = runnableSnippets('README.md').filter((s) => s.mode === 'npm start');
  expect(client?.code).toContain("from 'switchboard-kit/client'");
  const url = /listening on (http:\/\/\S+)/.exec(server.output())![1]!;
  const key = /Admin API key {4}(sbk_\w+)/.exec(server.output())![1]!;
  snippet = startSnippet(project.dir, 'tour', client!.code.replaceAll('http://127.0.0.1:4000', url), {
    KEY: key,
  });
  expect(await snippet.exited, snippet.output()).toBe(0);
  expect(snippet.output().trim()).toBe('pending 18.40');
}, 60_000);

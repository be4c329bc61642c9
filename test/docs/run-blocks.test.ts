/**
 * Every TypeScript block of README.md and docs/ that claims to run (`<!-- run -->` above its fence; the
 * kinds are in test/support/doc-snippets.ts) is run as a reader would run it, against the built package:
 * it must exit 0 having printed something, or, for a server, answer with the key it printed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  markdownFiles,
  type RunnableSnippet,
  readerProject,
  runnableSnippets,
  type SnippetRun,
  startSnippet,
  stopGroup,
  waitFor,
} from '../support/doc-snippets.js';
import { type RunningExample, startExampleServer } from '../support/example-server.js';

const snippets = markdownFiles().flatMap(runnableSnippets);
const project = readerProject();
const running: SnippetRun[] = [];
let example: Promise<RunningExample> | undefined;

afterAll(async () => {
  for (const run of running) await stopGroup(run.process, run.exited);
  await (await example)?.stop();
  project.remove();
}, 30_000);

const nameOf = (snippet: RunnableSnippet) => `${snippet.markdown.replace(/\W+/g, '-')}-${snippet.line}`;

async function run(snippet: RunnableSnippet): Promise<void> {
  let code = snippet.code;
  const env: Record<string, string> = {};
  if (snippet.mode === 'npm start') {
    example ??= startExampleServer();
    const server = await example;
    const key = /Admin API key {4}(sbk_\w+)/.exec(server.output())![1]!;
    code = code.replaceAll('http://127.0.0.1:4000', server.url);
    Object.assign(env, { KEY: key, SWITCHBOARD_API_KEY: key });
  }
  if (snippet.mode === 'serves') {
    expect(code, 'a server block listens on port 4000').toContain('port: 4000');
    code = code.replace('port: 4000', 'port: 0');
  }
  const started = startSnippet(project.dir, nameOf(snippet), code, env);
  running.push(started);
  if (snippet.mode !== 'serves') {
    expect(await started.exited, started.output()).toBe(0);
    expect(started.output().trim(), 'it prints something').not.toBe('');
    expect(started.output()).not.toMatch(/\bundefined\b|\bNaN\b/);
    return;
  }
  const [, url, key] = await waitFor(started.output, /(http:\/\/127\.0\.0\.1:\d+)\S*.*?(sbk_\w+)/, 60_000);
  const answer = await fetch(`${url}/api/v1/clients`, { headers: { authorization: `Bearer ${key}` } });
  expect(answer.status, await answer.text()).toBe(200);
  await stopGroup(started.process, started.exited);
}

describe('the docs blocks that claim to run, run', () => {
  it('marks at least the README client snippet and the first examples of client, resources and console', () => {
    const files = snippets.map((s) => s.markdown);
    for (const file of ['README.md', 'docs/client.md', 'docs/resources.md', 'docs/console.md'])
      expect(files).toContain(file);
  });

  for (const snippet of snippets) {
    it(`${snippet.markdown}:${snippet.line} (${snippet.mode})`, () => run(snippet), 90_000);
  }
});

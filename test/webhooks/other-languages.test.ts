/**
 * The Python and Go verifiers of docs/webhooks.md ("Verifying in other languages"), run as the page
 * prints them against signatures `signWebhook` makes: the first ```python and the first ```go block
 * under that heading are written to a temporary directory next to a small harness that reads one case
 * (JSON) on stdin and prints `true` or `false`. The page is what is tested, never a copy.
 *
 * Go is required, not optional: without it the Go tests fail (CI's .ci/run installs golang-go). Its
 * build cache lives in node_modules/.cache/go so a fresh machine, root included, needs nothing else.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/webhooks/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const heading = '### Verifying in other languages';

/** The first fenced block tagged `language` in the section under {@link heading}. */
function snippet(language: 'python' | 'go'): string {
  const lines = readFileSync(join(root, 'docs/webhooks.md'), 'utf8').split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`docs/webhooks.md has no "${heading}" section.`);
  let block: { tag: string; lines: string[] } | null = null;
  for (const line of lines.slice(start + 1)) {
    if (block === null) {
      if (/^#{1,3} /.test(line)) break; // the next section
      const tag = /^```(\S*)$/.exec(line)?.[1];
      if (tag !== undefined) block = { tag, lines: [] };
    } else if (line === '```') {
      if (block.tag === language) return `${block.lines.join('\n')}\n`;
      block = null;
    } else block.lines.push(line);
  }
  throw new Error(`The "${heading}" section of docs/webhooks.md has no \`\`\`${language} block.`);
}

/** One request as a verifier sees it: the body travels as base64 so every byte arrives as sent. */
interface Case {
  readonly secret: string;
  readonly body: string;
  readonly timestamp: string;
  readonly signature: string;
}

/** One case in (a fresh process each time), whether the snippet accepted it out. */
type Verifier = (request: Case) => boolean;

function runner(command: string, args: readonly string[], cwd: string): Verifier {
  return (request) => {
    const result = spawnSync(command, args, { cwd, input: JSON.stringify(request), timeout: 10_000 });
    const stderr = result.stderr?.toString() ?? '';
    if (result.error || result.status !== 0) {
      throw new Error(`${command} failed (${result.error?.message ?? `exit ${result.status}`}):\n${stderr}`);
    }
    const printed = result.stdout.toString().trim();
    if (printed !== 'true' && printed !== 'false') throw new Error(`${command} printed "${printed}"`);
    return printed === 'true';
  };
}

/** Fails, with what to install, when a toolchain the verifiers need is absent. */
function required(command: string, versionArgs: readonly string[], install: string): void {
  const probe = spawnSync(command, versionArgs, { stdio: 'ignore' });
  if ((probe.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new Error(`\`${command}\` is not installed; the verifiers of docs/webhooks.md need it: ${install}`);
  }
}

const pythonHarness = `import base64, json, sys
from verifier import verify_webhook

case = json.load(sys.stdin)
body = base64.b64decode(case["body"])
print(json.dumps(verify_webhook(case["secret"], body, case["timestamp"], case["signature"])))
`;

function preparePython(dir: string): Verifier {
  required('python3', ['--version'], 'apt-get install python3');
  writeFileSync(join(dir, 'verifier.py'), snippet('python'));
  writeFileSync(join(dir, 'harness.py'), pythonHarness);
  return runner('python3', ['harness.py'], dir);
}

const goHarness = (pkg: string): string => `package main

import (
	"encoding/json"
	"fmt"
	"os"

	"harness/${pkg}"
)

func main() {
	var c struct {
		Secret    string \`json:"secret"\`
		Body      []byte \`json:"body"\`
		Timestamp string \`json:"timestamp"\`
		Signature string \`json:"signature"\`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(${pkg}.Verify(c.Secret, c.Body, c.Timestamp, c.Signature))
}
`;

function prepareGo(dir: string): Verifier {
  required('go', ['version'], 'apt-get install golang-go');
  const code = snippet('go');
  const pkg = /^package (\w+)$/m.exec(code)?.[1];
  if (!pkg) throw new Error('The ```go block of docs/webhooks.md has no package clause.');
  mkdirSync(join(dir, pkg));
  writeFileSync(join(dir, pkg, 'verify.go'), code);
  writeFileSync(join(dir, 'main.go'), goHarness(pkg));
  // A module with no requirements: nothing is downloaded, and the Go of Debian 12 (1.19) builds it.
  writeFileSync(join(dir, 'go.mod'), 'module harness\n\ngo 1.19\n');
  const cache = join(root, 'node_modules/.cache/go');
  const env = {
    ...process.env,
    GOCACHE: join(cache, 'build'),
    GOPATH: join(cache, 'path'),
    GOFLAGS: '',
    GOPROXY: 'off',
    GOWORK: 'off',
    GOTOOLCHAIN: 'local',
  };
  const unformatted = execFileSync('gofmt', ['-l', pkg], { cwd: dir, env }).toString().trim();
  if (unformatted) throw new Error('The ```go block of docs/webhooks.md is not gofmt-formatted.');
  execFileSync('go', ['vet', './...'], { cwd: dir, env, stdio: 'pipe' });
  execFileSync('go', ['build', '-o', 'verify', '.'], { cwd: dir, env, stdio: 'pipe' });
  return runner(join(dir, 'verify'), [], dir);
}

const secret = 'whsec_c2hhcmVkLXNlY3JldC1mb3ItdGVzdHMtb25seQ==';
const oldSecret = 'whsec_b2xkLXNlY3JldC1iZWZvcmUtdGhlLXJvdGF0aW9u';
const asciiBody = JSON.stringify({ event: 'order.created', event_id: 'evt_1', data: { id: 'ord_1' } });
const utf8Body = JSON.stringify({ event: 'message.created', data: { text: 'zoë, 注文 🚚 ok' } });
const now = (): number => Math.floor(Date.now() / 1000);
const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** A case signed by the library; `verifyWith` is the one secret the receiver holds. */
async function signed(
  options: { body?: string; timestamp?: number; secrets?: string[]; verifyWith?: string } = {},
): Promise<Case> {
  const body = new TextEncoder().encode(options.body ?? asciiBody);
  const headers = await signWebhook({
    body,
    secrets: options.secrets ?? [secret],
    eventId: 'evt_1',
    timestamp: options.timestamp ?? now(),
  });
  return {
    secret: options.verifyWith ?? secret,
    body: base64(body),
    timestamp: headers['x-timestamp']!,
    signature: headers['x-signature']!,
  };
}

const languages: readonly [string, (dir: string) => Verifier][] = [
  ['Python', preparePython],
  ['Go', prepareGo],
];

describe.each(languages)('the %s verifier of docs/webhooks.md', (_name, prepare) => {
  let dir: string;
  let prepared: Verifier | Error;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-verifier-'));
    try {
      prepared = prepare(dir);
    } catch (error) {
      prepared = error as Error;
    }
  }, 180_000);
  // A missing toolchain or a snippet that does not build fails every test, never skips it.
  const verify: Verifier = (request) => {
    if (prepared instanceof Error) throw prepared;
    return prepared(request);
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts a signature made by signWebhook', async () => {
    expect(verify(await signed())).toBe(true);
  });

  it('accepts a body with multi-byte UTF-8, signed as bytes', async () => {
    expect(verify(await signed({ body: utf8Body }))).toBe(true);
  });

  it('accepts a rotation header when its second signature (the old secret) matches', async () => {
    const request = await signed({ secrets: [secret, oldSecret], verifyWith: oldSecret });
    expect(request.signature.split(',')).toHaveLength(2);
    expect(verify(request)).toBe(true);
  });

  it('rejects a body changed by one byte', async () => {
    const request = await signed({ body: utf8Body });
    const body = Buffer.from(request.body, 'base64');
    const last = body.length - 1;
    body[last] = body[last]! ^ 0x01; // "}" becomes "|"
    expect(verify({ ...request, body: base64(body) })).toBe(false);
  });

  it('accepts a timestamp up to 300 s old, or ahead', async () => {
    expect(verify(await signed({ timestamp: now() - 290 }))).toBe(true);
    expect(verify(await signed({ timestamp: now() + 290 }))).toBe(true);
  });

  it('rejects a timestamp more than 300 s old, or ahead', async () => {
    expect(verify(await signed({ timestamp: now() - 301 }))).toBe(false);
    // The clock moves on while the verifier starts: a future timestamp needs a margin, a past one none.
    expect(verify(await signed({ timestamp: now() + 310 }))).toBe(false);
  });

  it('rejects a wrong secret', async () => {
    expect(verify(await signed({ verifyWith: oldSecret }))).toBe(false);
  });

  it('rejects malformed signature headers without crashing', async () => {
    const request = await signed();
    for (const signature of ['sha256=zz', 'garbage', '', 'sha256=', ',,', 'sha256=ü', 'sha256=abc']) {
      expect(verify({ ...request, signature }), signature).toBe(false);
    }
  });

  it('rejects a timestamp that is not Unix seconds without crashing', async () => {
    const request = await signed();
    for (const timestamp of ['', 'abc', `-${request.timestamp}`, `+${request.timestamp}`, '1e9', '٣']) {
      expect(verify({ ...request, timestamp }), timestamp).toBe(false);
    }
  });
});

/**
 * The Python and Go verifiers of docs/webhooks.md ("Verifying in other languages"), run as the page
 * prints them against signatures `signWebhook` makes: the first ```python and the first ```go block
 * under that heading are written to a temporary directory next to a small harness that reads one case
 * (JSON) on stdin and prints `true` or `false`. The page is what is tested, never a copy. The `v1a`
 * (Ed25519) verifiers of its "Ed25519 signatures" section run the same way against a real delivery.
 *
 * Go is required, not optional: without it the Go tests fail (CI's .ci/run installs golang-go). Its
 * build cache lives in node_modules/.cache/go so a fresh machine, root included, needs nothing else.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { signWebhook } from '../../src/webhooks/index.js';
import { until } from '../support/until.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const HMAC_HEADING = '### Verifying in other languages';
const ED25519_HEADING = '### Ed25519 signatures (`v1a`)';

/** The first fenced block tagged `language` in the section under `heading` (HMAC's by default). */
function snippet(language: 'python' | 'go', heading = HMAC_HEADING): string {
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
type Verifier<T = Case> = (request: T) => boolean;

function runner<T = Case>(command: string, args: readonly string[], cwd: string): Verifier<T> {
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

function prepareGo<T = Case>(dir: string, heading = HMAC_HEADING, harness = goHarness): Verifier<T> {
  required('go', ['version'], 'apt-get install golang-go');
  const code = snippet('go', heading);
  const pkg = /^package (\w+)$/m.exec(code)?.[1];
  if (!pkg) throw new Error('The ```go block of docs/webhooks.md has no package clause.');
  mkdirSync(join(dir, pkg));
  writeFileSync(join(dir, pkg, 'verify.go'), code);
  writeFileSync(join(dir, 'main.go'), harness(pkg));
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
  return runner<T>(join(dir, 'verify'), [], dir);
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

/**
 * The `v1a` verifiers of the "Ed25519 signatures" section, against a real delivery of an `ed25519`
 * endpoint and the key set its server publishes (Python needs the `cryptography` package: CI's .ci/run
 * installs python3-cryptography).
 */
interface Ed25519Case {
  readonly keySet: { readonly keys: readonly Record<string, string>[] };
  readonly id: string;
  /** base64 */
  readonly body: string;
  readonly timestamp: string;
  readonly signature: string;
}

const pythonEd25519Harness = `import base64, json, sys
from verifier import public_keys, verify_webhook_ed25519

case = json.load(sys.stdin)
body = base64.b64decode(case["body"])
keys = public_keys(case["keySet"])
print(json.dumps(verify_webhook_ed25519(keys, case["id"], body, case["timestamp"], case["signature"])))
`;

function preparePythonEd25519(dir: string): Verifier<Ed25519Case> {
  required('python3', ['--version'], 'apt-get install python3');
  const probe = spawnSync('python3', ['-c', 'import cryptography'], { stdio: 'ignore' });
  if (probe.status !== 0) {
    throw new Error('The Python cryptography package is missing: apt-get install python3-cryptography');
  }
  writeFileSync(join(dir, 'verifier.py'), snippet('python', ED25519_HEADING));
  writeFileSync(join(dir, 'harness.py'), pythonEd25519Harness);
  return runner<Ed25519Case>('python3', ['harness.py'], dir);
}

const goEd25519Harness = (pkg: string): string => `package main

import (
	"encoding/json"
	"fmt"
	"os"

	"harness/${pkg}"
)

func main() {
	var c struct {
		KeySet struct {
			Keys []${pkg}.JWK \`json:"keys"\`
		} \`json:"keySet"\`
		ID        string \`json:"id"\`
		Body      []byte \`json:"body"\`
		Timestamp string \`json:"timestamp"\`
		Signature string \`json:"signature"\`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(${pkg}.VerifyEd25519(c.KeySet.Keys, c.ID, c.Body, c.Timestamp, c.Signature))
}
`;

const ed25519Languages: readonly [string, (dir: string) => Verifier<Ed25519Case>][] = [
  ['Python', preparePythonEd25519],
  ['Go', (dir) => prepareGo<Ed25519Case>(dir, ED25519_HEADING, goEd25519Harness)],
];

const ADMIN = 'sbk_other_languages_admin_key_0123456789abcd';

describe('v1a verifiers of docs/webhooks.md against a real ed25519 delivery', () => {
  let switchboard: Switchboard;
  let server: NodeServer;
  let receiver: NodeServer;
  let delivered: Ed25519Case;
  /** A key pair of "another deployment": its set and a JWK that can sign. */
  const other = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const otherSet = {
    keys: [{ kty: 'OKP', crv: 'Ed25519', x: other.x!, kid: 'other', use: 'sig', alg: 'EdDSA' }],
  };
  /** A case signed by `signWebhook` with the other key, verified against the other set. */
  const signedByOther = async (options: { body?: string; timestamp?: number } = {}): Promise<Ed25519Case> => {
    const body = new TextEncoder().encode(options.body ?? asciiBody);
    const headers = await signWebhook({
      body,
      privateKeys: [{ kty: 'OKP', crv: 'Ed25519', x: other.x!, d: other.d! }],
      eventId: 'evt_1',
      timestamp: options.timestamp ?? now(),
    });
    return {
      keySet: otherSet,
      id: 'evt_1',
      body: base64(body),
      timestamp: headers['webhook-timestamp']!,
      signature: headers['webhook-signature']!,
    };
  };

  beforeAll(async () => {
    const arrived: { headers: Headers; body: Uint8Array }[] = [];
    switchboard = createSwitchboard({
      oauth: { adminApiKey: ADMIN },
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
      relayIntervalMs: 50,
    });
    switchboard.start();
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    receiver = await serve({
      port: 0,
      shutdownSignals: [],
      fetch: async (request) => {
        arrived.push({ headers: request.headers, body: new Uint8Array(await request.arrayBuffer()) });
        return new Response('ok');
      },
    });
    await switchboard.oauth!.ready;
    const call = (path: string, json: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });
    await call('/api/v1/webhook-endpoints', {
      url: `${receiver.url}/hooks`,
      eventTypes: ['client.created'],
      signature: 'ed25519',
    });
    // A name beyond ASCII: the body is signed, and verified, as its UTF-8 bytes.
    await call('/api/v1/clients', { name: 'Zoë 注文', email: 'zoe@example.com' });
    await until(() => arrived.length > 0, 'the delivery');
    const [got] = arrived;
    const keySet = await (await fetch(`${server.url}/.well-known/webhook-keys`)).json();
    delivered = {
      keySet,
      id: got!.headers.get('webhook-id')!,
      body: base64(got!.body),
      timestamp: got!.headers.get('webhook-timestamp')!,
      signature: got!.headers.get('webhook-signature')!,
    };
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    await switchboard?.close();
  });

  describe.each(ed25519Languages)('the %s v1a verifier', (_name, prepare) => {
    let dir: string;
    let prepared: Verifier<Ed25519Case> | Error;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'switchboard-v1a-verifier-'));
      try {
        prepared = prepare(dir);
      } catch (error) {
        prepared = error as Error;
      }
    }, 180_000);
    const verify: Verifier<Ed25519Case> = (request) => {
      if (prepared instanceof Error) throw prepared;
      return prepared(request);
    };
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('accepts the delivery with the published key set', () => {
      expect(delivered.signature).toMatch(/^v1a,/);
      expect(verify(delivered)).toBe(true);
    });

    it('rejects the delivery with its body changed by one byte', () => {
      const body = Buffer.from(delivered.body, 'base64');
      body[body.length - 1] = body[body.length - 1]! ^ 0x01;
      expect(verify({ ...delivered, body: base64(body) })).toBe(false);
    });

    it("rejects the delivery against another deployment's keys, or another event id", () => {
      expect(verify({ ...delivered, keySet: otherSet })).toBe(false);
      expect(verify({ ...delivered, id: `${delivered.id}x` })).toBe(false);
    });

    it('accepts a signature of any key of the set: the old one during a rotation', async () => {
      const request = await signedByOther({ body: utf8Body });
      expect(verify({ ...request, keySet: { keys: [...delivered.keySet.keys, ...otherSet.keys] } })).toBe(
        true,
      );
    });

    it('rejects a timestamp more than 300 s old, or ahead', async () => {
      expect(verify(await signedByOther({ timestamp: now() - 290 }))).toBe(true);
      expect(verify(await signedByOther({ timestamp: now() - 301 }))).toBe(false);
      expect(verify(await signedByOther({ timestamp: now() + 310 }))).toBe(false);
    });

    it('rejects an HMAC-only header and malformed ones without crashing', () => {
      for (const signature of ['v1,abc=', 'v1a,', 'v1a,!!', 'garbage', '', 'v1a,AAAA']) {
        expect(verify({ ...delivered, signature }), signature).toBe(false);
      }
    });
  });
});

/**
 * The MCP project's own conformance suite (`@modelcontextprotocol/conformance`, offline) against a
 * switchboard's /mcp on a loopback port, configured as a local server should be (`allowedHosts`).
 * The suite sends no credentials, so this test's host adds an admin key to each request, as a local
 * gateway holding the key would. Scenarios that need the reference server's fixture tools, prompts or
 * resources, or a stateful stream, are listed with their reasons in conformance-baseline.yaml; the run
 * fails on any other failure and on a listed one that starts to pass.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { nodeBinary } from '../runtimes/node-binary.mjs';

const ADMIN = 'sbk_mcp_conformance_admin_0123456789abcdef';
const cli = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);
const baseline = fileURLToPath(new URL('./conformance-baseline.yaml', import.meta.url));

describe('the MCP conformance suite', () => {
  let server: NodeServer;
  let switchboard: Switchboard | undefined;

  beforeAll(async () => {
    server = await serve({
      fetch: (request, info) => {
        const headers = new Headers(request.headers);
        headers.set('authorization', `Bearer ${ADMIN}`);
        return switchboard!.fetch(new Request(request, { headers }), info);
      },
      port: 0,
      shutdownSignals: [],
    });
    const port = new URL(server.url).port;
    switchboard = createSwitchboard({
      oauth: { adminApiKey: ADMIN },
      mcp: { allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`] },
    });
  });
  afterAll(async () => {
    await server?.close();
    await switchboard?.close();
  });

  it('passes every scenario that applies: initialize, ping, tools/list, resources/list, DNS rebinding protection', async () => {
    // The suite needs Node 22 or later (fs.globSync); on Node 20 it runs on a Node 24 binary.
    const major = Number(process.versions.node.split('.')[0]);
    const node = major >= 22 ? process.execPath : await nodeBinary('24');
    const run = await promisify(execFile)(
      node,
      [cli, 'server', '--url', `${server.url}/mcp`, '--expected-failures', baseline],
      { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
    const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
    expect(output, output).toContain('Baseline check passed');
    for (const scenario of [
      'server-initialize',
      'ping',
      'tools-list',
      'resources-list',
      'dns-rebinding-protection',
    ])
      expect(output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
  }, 300_000);
});

/**
 * What a caller of /mcp controls is bounded as on REST: the body is read within its limit, and refused
 * credentials are charged to the caller's address until it is refused with 429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { postMcp } from '../support/mcp.js';

const ADMIN = 'sbk_mcp_limits_admin_key_0123456789abcdefgh';

describe('the MCP endpoint bounds what a caller sends', () => {
  let server: NodeServer;

  beforeAll(async () => {
    const switchboard = createSwitchboard({
      oauth: { adminApiKey: ADMIN },
      mcp: { maxBodyBytes: 1024 },
      rateLimits: { rules: { read: { limit: 3, windowMs: 60_000 } } },
    });
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
  });
  afterAll(() => server?.close());

  const post = (token: string, body: string) => postMcp(`${server.url}/mcp`, token, body);

  it('refuses a body over the limit with 413 and a JSON-RPC error, without reading it whole', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2048) } });
    const response = await post(ADMIN, ping);
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/1024|1 KiB|bytes/);
    const small = await post(ADMIN, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    expect(small.status).toBe(200);
  });

  it("charges refused credentials to the caller's address: 401 until the budget is spent, then 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post('sbk_wrong_key', '{}')).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

/**
 * The peer's address travels in the request's context, from the Node adapter to the budgets: no
 * module-level map holds it. Served on both loopbacks, 127.0.0.1 and ::1 are two callers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';

let server: NodeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A token request with a client secret nobody issued: a failed client authentication. */
function guess(base: string): Promise<Response> {
  return fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${btoa('oac_nobody:not-a-secret')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
}

describe('the client address on Node', () => {
  it('reaches the failed-auth budget through the request context: each peer address has its own', async () => {
    const switchboard = createSwitchboard({
      graphql: false,
      rateLimits: { rules: { 'failed-auth': { limit: 2, windowMs: 60_000 } } },
    });
    // Every interface: IPv4 callers arrive as ::ffff:127.0.0.1, IPv6 ones as ::1.
    server = await serve({ fetch: switchboard.fetch, host: '::', port: 0, shutdownSignals: [] });
    const v4 = `http://127.0.0.1:${server.port}`;
    const v6 = `http://[::1]:${server.port}`;

    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await guess(v4)).status);
    expect(statuses).toEqual([401, 401, 429]);

    // Another address has a budget of its own (were the address lost, both would be `unknown`'s).
    const other = await guess(v6);
    expect(other.status).toBe(401);
    expect(other.headers.get('ratelimit')).toMatch(/^"failed-auth";r=1;/);
  });
});

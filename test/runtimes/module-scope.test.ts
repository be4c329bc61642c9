/**
 * Cloudflare Workers refuse random values, timers and I/O in a module's global scope ("Disallowed
 * operation called within global scope"), and that is where docs/architecture.md makes the switchboard.
 * Here the same refusals are set up around `createSwitchboard`: constructing must need none of them,
 * and the first request (where a Worker allows them) must work.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';

const ADMIN = 'sbk_module_scope_admin_key_0123456789abcdefgh';
const refused = ['getRandomValues', 'randomUUID'] as const;
const originals = {
  getRandomValues: crypto.getRandomValues.bind(crypto),
  randomUUID: crypto.randomUUID.bind(crypto),
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
};

/**
 * Runs `work` as a Worker's global scope would: random values and timers throw, also in the promise
 * jobs `work` leaves behind, which a Worker runs before the scope ends (workerd refused the admin key's
 * id there, after the constructor had returned).
 */
async function inGlobalScope<T>(work: () => T): Promise<T> {
  const disallowed = (what: string) => () => {
    throw new Error(`Disallowed operation called within global scope: ${what}`);
  };
  for (const name of refused)
    Object.defineProperty(crypto, name, { value: disallowed(name), configurable: true });
  globalThis.setTimeout = disallowed('setTimeout') as unknown as typeof setTimeout;
  globalThis.setInterval = disallowed('setInterval') as unknown as typeof setInterval;
  try {
    const made = work();
    // Work the constructor left behind runs under the refusals too, however long it takes in a Worker;
    // 100 ms covers Web Crypto's thread-pool jobs, which one task (setTimeout 0) did not on Node 24.
    await new Promise((resolve) => originals.setTimeout(resolve, 100));
    return made;
  } finally {
    restore();
  }
}

function restore(): void {
  for (const name of refused)
    Object.defineProperty(crypto, name, { value: originals[name], configurable: true });
  globalThis.setTimeout = originals.setTimeout;
  globalThis.setInterval = originals.setInterval;
}

afterEach(restore);

describe('createSwitchboard in a module scope that refuses random values and timers', () => {
  it('constructs, then serves REST, GraphQL, OAuth discovery and the token endpoint', async () => {
    const switchboard = await inGlobalScope(() =>
      createSwitchboard({ oauth: { adminApiKey: ADMIN, idTokens: {} }, console: { secret: undefined } }),
    );
    const call = (path: string, init: RequestInit = {}) =>
      switchboard.fetch(
        new Request(`http://worker.example${path}`, {
          ...init,
          headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', ...init.headers },
        }),
      );
    const created = await call('/api/v1/clients', {
      method: 'POST',
      body: JSON.stringify({ name: 'Ada', email: 'ada@example.com' }),
    });
    expect(created.status).toBe(201);
    const graphql = await call('/graphql', {
      method: 'POST',
      body: JSON.stringify({ query: '{ clients { id } }' }),
    });
    expect(((await graphql.json()) as { data: { clients: unknown[] } }).data.clients).toHaveLength(1);
    const metadata = await switchboard.fetch(
      new Request('http://worker.example/.well-known/openid-configuration'),
    );
    expect(metadata.status).toBe(200);
    const jwks = await switchboard.fetch(new Request('http://worker.example/oauth/jwks'));
    expect(((await jwks.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
    const authorize = await switchboard.fetch(
      new Request('http://worker.example/oauth/authorize?response_type=code&client_id=nope'),
    );
    expect(authorize.status).toBeLessThan(500);
    const machine = await switchboard.oauth!.registerClient({
      name: 'Worker bot',
      type: 'confidential',
      redirectUris: [],
      scopes: ['crm.clients.read'],
      grantTypes: ['client_credentials'],
    });
    const token = await switchboard.fetch(
      new Request('http://worker.example/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: machine.client.id,
          client_secret: machine.secret!,
        }),
      }),
    );
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const read = await switchboard.fetch(
      new Request('http://worker.example/api/v1/clients', {
        headers: { authorization: `Bearer ${access_token}` },
      }),
    );
    expect(read.status).toBe(200);
  });
});

/**
 * The guard keeps the credentials it found valid, so a request costs no storage read, and still refuses
 * a revoked one at once: on the instance that revoked it, and on every other instance sharing the
 * database and the PostgreSQL bus, as soon as the bus delivers the announcement.
 */
import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMemoryEventBus,
  createSwitchboard,
  type Switchboard,
  type SwitchboardOptions,
} from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { hashSecret } from '../../src/oauth/secrets.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createPostgresEventBus } from '../../src/storage/postgres/index.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { manualClock } from '../support/clock.js';

const ADMIN_KEY = 'sbk_test_admin_key_credential_cache_0123456789';

interface Instance {
  readonly base: string;
  readonly switchboard: Switchboard;
  readonly server: NodeServer;
}

async function start(options: SwitchboardOptions): Promise<Instance> {
  const switchboard = createSwitchboard({ oauth: { adminApiKey: ADMIN_KEY }, graphql: false, ...options });
  const server = await serve({
    fetch: (request) => switchboard.fetch(request),
    port: 0,
    shutdownSignals: [],
  });
  return { base: server.url, switchboard, server };
}

async function stop(instance: Instance | undefined): Promise<void> {
  await instance?.server.close();
  await instance?.switchboard.close();
}

const call = (instance: Instance, method: string, path: string, token: string, body?: unknown) =>
  fetch(`${instance.base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** The status of a read that needs `crm.clients.read`, the body consumed. */
async function read(instance: Instance, token: string): Promise<number> {
  const response = await call(instance, 'GET', '/api/v1/clients?limit=1', token);
  await response.arrayBuffer();
  return response.status;
}

async function newApiKey(
  instance: Instance,
  scopes: readonly string[] = ['crm.clients.read'],
): Promise<{ id: string; key: string }> {
  const response = await call(instance, 'POST', '/oauth/api-keys', ADMIN_KEY, { name: 'CRM sync', scopes });
  expect(response.status).toBe(201);
  const { id, key } = (await response.json()) as { id: string; key: string };
  return { id, key };
}

/** A machine client (client credentials) and a way to get its access tokens. */
async function newMachine(instance: Instance): Promise<{ id: string; token(): Promise<string> }> {
  const response = await call(instance, 'POST', '/oauth/clients', ADMIN_KEY, {
    name: 'Nightly sync',
    type: 'confidential',
    redirectUris: [],
    scopes: ['crm.clients.read'],
    grantTypes: ['client_credentials'],
  });
  expect(response.status).toBe(201);
  const client = (await response.json()) as { id: string; secret: string };
  return {
    id: client.id,
    async token() {
      const answer = await fetch(`${instance.base}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials' }),
      });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { access_token: string }).access_token;
    },
  };
}

/** How long until `instance` refuses `token`, asking at most every 10 ms for at most 1 s. */
async function refusedWithin(instance: Instance, token: string): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 1_000) {
    const status = await read(instance, token);
    if (status === 401) return performance.now() - started;
    expect(status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('still accepted after 1 s');
}

describe('credential cache, one instance on memory storage', () => {
  const clock = manualClock(Date.now());
  const inner = createMemoryStorage();
  // The storage the guard is given counts its reads by token hash; it reads the real memory storage.
  const reads = new Map<string, number>();
  const counted = (hash: string) => reads.set(hash, (reads.get(hash) ?? 0) + 1);
  const grantReads = new Map<string, number>();
  const storage: typeof inner = {
    ...inner,
    apiKeys: {
      ...inner.apiKeys,
      findByHash: (hash) => {
        counted(hash);
        return inner.apiKeys.findByHash(hash);
      },
    },
    oauth: {
      ...inner.oauth,
      accessTokens: {
        ...inner.oauth.accessTokens,
        get: (hash) => {
          counted(hash);
          return inner.oauth.accessTokens.get(hash);
        },
      },
      grants: {
        ...inner.oauth.grants,
        get: (id) => {
          grantReads.set(id, (grantReads.get(id) ?? 0) + 1);
          return inner.oauth.grants.get(id);
        },
      },
    },
  };
  let instance: Instance;
  beforeAll(async () => {
    // The host's bus is what tells the guard that it may keep credentials.
    instance = await start({ storage, clock, bus: createMemoryEventBus() });
  });
  afterAll(() => stop(instance));

  it('reads an API key from storage once, then not until it is revoked', async () => {
    const { id, key } = await newApiKey(instance);
    for (let i = 0; i < 5; i++) expect(await read(instance, key)).toBe(200);
    expect(reads.get(hashSecret(key))).toBe(1);

    expect((await call(instance, 'DELETE', `/oauth/api-keys/${id}`, ADMIN_KEY)).status).toBe(204);
    expect(await read(instance, key)).toBe(401);
    expect(reads.get(hashSecret(key))).toBe(2);
  });

  it('reads it again after the safety TTL of 5 s, and keeps touching lastUsedAt at most once a minute', async () => {
    const { id, key } = await newApiKey(instance);
    const lastUsed = async () => (await inner.apiKeys.get(id))?.lastUsedAt;
    expect(await read(instance, key)).toBe(200);
    const first = clock.now();
    expect(await lastUsed()).toBe(first);
    clock.advance(4_999);
    expect(await read(instance, key)).toBe(200);
    expect(reads.get(hashSecret(key))).toBe(1);
    clock.advance(1);
    expect(await read(instance, key)).toBe(200);
    expect(reads.get(hashSecret(key))).toBe(2);
    expect(await lastUsed()).toBe(first);
    clock.advance(60_000);
    expect(await read(instance, key)).toBe(200);
    expect(await lastUsed()).toBe(clock.now());
  });

  it('reads an access token and its grant once, refuses it when expired, and when its client is disabled', async () => {
    const machine = await newMachine(instance);
    const token = await machine.token();
    for (let i = 0; i < 5; i++) expect(await read(instance, token)).toBe(200);
    expect(reads.get(hashSecret(token))).toBe(1);
    expect([...grantReads.values()].reduce((a, b) => a + b, 0)).toBe(1);

    // Expiry is checked on every request, a kept token's too (the default lifetime is an hour).
    clock.advance(3_600_000);
    expect(await read(instance, token)).toBe(401);

    const fresh = await machine.token();
    expect(await read(instance, fresh)).toBe(200);
    expect((await call(instance, 'POST', `/oauth/clients/${machine.id}/disable`, ADMIN_KEY)).status).toBe(
      200,
    );
    expect(await read(instance, fresh)).toBe(401);
  });

  it('does not keep unknown tokens', async () => {
    for (let i = 0; i < 3; i++) expect(await read(instance, 'sbk_guessed_0123456789')).toBe(401);
    expect(reads.get(hashSecret('sbk_guessed_0123456789'))).toBe(3);
  });

  it('keeps nothing without a bus from the host: instances may share the storage and nothing else', async () => {
    const bare = await start({ storage, clock });
    try {
      const { key } = await newApiKey(bare);
      for (let i = 0; i < 3; i++) expect(await read(bare, key)).toBe(200);
      expect(reads.get(hashSecret(key))).toBe(3);
    } finally {
      await stop(bare);
    }
  });
});

describe('credential cache, two instances on one PostgreSQL database and bus', () => {
  let db: TestDatabase;
  let a: Instance | undefined;
  let b: Instance | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    const instance = async (): Promise<Instance> => {
      // Migrated first: the bus reads its table.
      const storage = await db.storage();
      const bus = createPostgresEventBus({ connectionString: db.url });
      await bus.ready();
      const started = await start({ storage, bus });
      return {
        ...started,
        switchboard: {
          ...started.switchboard,
          close: async () => {
            await started.switchboard.close();
            await bus.close();
          },
        },
      };
    };
    a = await instance();
    b = await instance();
  });
  afterAll(async () => {
    await stop(a);
    await stop(b);
    await db?.drop();
  });

  it('refuses an API key revoked on A at once on A, and on B as soon as the bus delivers', async () => {
    const { id, key } = await newApiKey(a!);
    for (const instance of [a!, b!, a!, b!]) expect(await read(instance, key)).toBe(200);

    expect((await call(a!, 'DELETE', `/oauth/api-keys/${id}`, ADMIN_KEY)).status).toBe(204);
    expect(await read(a!, key)).toBe(401);
    expect(await refusedWithin(b!, key)).toBeLessThan(1_000);
  });

  it('refuses an access token on both once its grant is revoked on A', async () => {
    const machine = await newMachine(a!);
    const token = await machine.token();
    for (const instance of [a!, b!, a!, b!]) expect(await read(instance, token)).toBe(200);
    const grants = await call(a!, 'GET', `/oauth/grants?client_id=${machine.id}`, ADMIN_KEY);
    const [grant] = ((await grants.json()) as { items: { id: string }[] }).items;

    expect((await call(a!, 'DELETE', `/oauth/grants/${grant!.id}`, ADMIN_KEY)).status).toBe(204);
    expect(await read(a!, token)).toBe(401);
    expect(await refusedWithin(b!, token)).toBeLessThan(1_000);
  });

  it('refuses the access tokens of a client disabled on A on both', async () => {
    const machine = await newMachine(a!);
    const [first, second] = [await machine.token(), await machine.token()];
    for (const instance of [a!, b!]) {
      for (const token of [first, second]) expect(await read(instance, token)).toBe(200);
    }

    expect((await call(a!, 'POST', `/oauth/clients/${machine.id}/disable`, ADMIN_KEY)).status).toBe(200);
    for (const token of [first, second]) {
      expect(await read(a!, token)).toBe(401);
      expect(await refusedWithin(b!, token)).toBeLessThan(1_000);
    }
  });
});

describe('one keep-alive connection carrying several callers (a proxy)', () => {
  let instance: Instance;
  // One socket for every request: what the guard remembers of a connection is tested across callers.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  beforeAll(async () => {
    instance = await start({});
  });
  afterAll(async () => {
    agent.destroy();
    await stop(instance);
  });

  /** The status of a clients read over the one socket, and whether the socket was reused. */
  const readOnSocket = (token: string): Promise<{ status: number; reused: boolean }> =>
    new Promise((resolve, reject) => {
      const request = httpRequest(
        `${instance.base}/api/v1/clients?limit=1`,
        { agent, headers: { authorization: `Bearer ${token}` } },
        (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode!, reused: request.reusedSocket }));
        },
      );
      request.on('error', reject).end();
    });

  it("answers each request as its own caller's, and refuses a revoked key at once", async () => {
    const reader = await newApiKey(instance);
    const other = await newApiKey(instance, ['crm.orders.read']);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      for (const [key, name] of [
        [reader.key, 'reader'],
        [other.key, 'other'],
        [reader.key, 'reader'],
      ] as const) {
        const { status, reused } = await readOnSocket(key);
        seen.push(`${name} ${status}${reused ? '' : ' (new socket)'}`);
      }
    }
    expect(seen).toEqual([
      'reader 200 (new socket)',
      ...[
        'other 403',
        'reader 200',
        'reader 200',
        'other 403',
        'reader 200',
        'reader 200',
        'other 403',
        'reader 200',
      ],
    ]);
    expect((await call(instance, 'DELETE', `/oauth/api-keys/${reader.id}`, ADMIN_KEY)).status).toBe(204);
    expect(await readOnSocket(reader.key)).toEqual({ status: 401, reused: true });
    expect(await readOnSocket('sbk_guessed_0123456789')).toEqual({ status: 401, reused: true });
    expect(await readOnSocket(other.key)).toEqual({ status: 403, reused: true });
  });
});

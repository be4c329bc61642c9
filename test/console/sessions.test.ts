/**
 * A console session ends on the server: at sign-out, when the key it signed in with is revoked, and
 * when the host ends a user's sessions, on every instance that shares the storage (the memory one in
 * process, or one PostgreSQL). The live activity stream of a session that ended ends too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createTestDatabase } from '../setup/database.js';
import {
  ADA,
  ADMIN_KEY,
  type ConsoleInstance,
  closeConsoles,
  get,
  post,
  type Session,
  signIn,
  startConsoles,
} from './support.js';

interface Flavour {
  readonly name: string;
  /** Storages on one set of data, one per instance, and how to throw the data away. */
  make(): Promise<{ storage: () => Promise<Storage>; drop: () => Promise<void> }>;
}

const FLAVOURS: Flavour[] = [
  {
    name: 'memory',
    async make() {
      const storage = createMemoryStorage();
      return { storage: async () => storage, drop: async () => {} };
    },
  },
  {
    name: 'PostgreSQL',
    async make() {
      const db = await createTestDatabase();
      return { storage: () => db.storage(), drop: () => db.drop() };
    },
  },
];

/** Reads an event stream until it ends; fails if it is still open after `ms`. */
async function streamEnds(body: ReadableStream<Uint8Array>, ms = 5_000): Promise<void> {
  const reader = body.getReader();
  let late = false;
  const deadline = setTimeout(() => {
    late = true;
    void reader.cancel();
  }, ms);
  try {
    while (!(await reader.read()).done);
    if (late) throw new Error(`the stream was still open after ${ms} ms`);
  } finally {
    clearTimeout(deadline);
  }
}

describe.each(FLAVOURS)('console sessions on $name storage, two instances', (flavour) => {
  let a: ConsoleInstance;
  let b: ConsoleInstance;
  /** A third instance that checks its streams' sessions only once a minute. */
  let slow: ConsoleInstance;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const made = await flavour.make();
    drop = made.drop;
    [a, b] = (await startConsoles(made.storage, 2)) as [ConsoleInstance, ConsoleInstance];
    [slow] = (await startConsoles(made.storage, 1, {
      console: { secret: 'one secret for every instance', sessionCheckMs: 60_000 },
    })) as [ConsoleInstance];
  });
  afterAll(async () => {
    await closeConsoles([a, b, slow].filter(Boolean));
    await drop?.();
  });

  /** Whether the session opens an operator page on `instance`. */
  const opens = async (instance: ConsoleInstance, session: Session, path = '/api-keys') =>
    (await get(instance.base, path, session)).status === 200;

  /** An admin key of its own, so revoking it leaves the others signed in. */
  async function adminKey(): Promise<{ id: string; key: string }> {
    const { apiKey, key } = await a.switchboard.oauth!.admin.createApiKey({
      name: 'Operator',
      scopes: ['admin.webhooks.read', 'admin.oauth.write'],
    });
    return { id: apiKey.id, key };
  }

  /** Opens the live activity stream and waits for its first line. */
  async function openStream(
    instance: ConsoleInstance,
    session: Session,
  ): Promise<ReadableStream<Uint8Array>> {
    const response = await fetch(`${instance.base}/activity/stream`, {
      headers: { cookie: session.cookie, accept: 'text/event-stream' },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain(': connected');
    reader.releaseLock();
    return response.body!;
  }

  it('sign-out ends the session on every instance: the old cookie opens nothing and changes nothing', async () => {
    const session = await signIn(a.base, { api_key: ADMIN_KEY });
    expect(await opens(b, session)).toBe(true);
    const out = await post(b.base, '/sign-out', session);
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^sb_console=;.*Max-Age=0/);
    // The cookie as it was before sign-out, replayed on both instances.
    for (const instance of [a, b]) {
      const page = await get(instance.base, '/api-keys', session);
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/console/sign-in');
    }
    const keys = (await a.switchboard.oauth!.admin.listApiKeys()).length;
    const created = await post(a.base, '/api-keys', session, {
      name: 'persistence',
      scopes: 'admin.oauth.write',
    });
    expect(created.status).toBe(401);
    expect(await a.switchboard.oauth!.admin.listApiKeys()).toHaveLength(keys);
    // Signing in again opens a new session.
    expect(await opens(a, await signIn(a.base, { api_key: ADMIN_KEY }))).toBe(true);
  });

  it('signing out one session leaves the same key’s other sessions open', async () => {
    const first = await signIn(a.base, { api_key: ADMIN_KEY });
    const second = await signIn(b.base, { api_key: ADMIN_KEY });
    await post(a.base, '/sign-out', first);
    expect(await opens(b, first)).toBe(false);
    expect(await opens(a, second)).toBe(true);
  });

  it('revoking the key a session signed in with ends the session on every instance', async () => {
    const { id, key } = await adminKey();
    const session = await signIn(a.base, { api_key: key });
    expect(await opens(b, session)).toBe(true);
    await b.switchboard.oauth!.admin.revokeApiKey(id);
    expect(await opens(a, session)).toBe(false);
    expect(await opens(b, session)).toBe(false);
  });

  it("ending a user's sessions signs them out on every instance", async () => {
    const session = await signIn(a.base, { email: ADA.email, password: ADA.password });
    expect(await opens(b, session, '/me')).toBe(true);
    const other = await signIn(b.base, { api_key: ADMIN_KEY });
    await b.switchboard.console!.endSessions(ADA.id);
    expect(await opens(a, session, '/me')).toBe(false);
    expect(await opens(b, session, '/me')).toBe(false);
    expect(await opens(a, other)).toBe(true);
  });

  it('the live stream ends at sign-out, on the instance signed out of at once and on the others at their next check', async () => {
    const session = await signIn(a.base, { api_key: ADMIN_KEY });
    // The instance signed out of ends its stream without waiting for its check (a minute away).
    const here = await openStream(slow, session);
    const there = await openStream(b, session);
    await post(slow.base, '/sign-out', session);
    await streamEnds(here, 1_000);
    await streamEnds(there, 2_000);
    // Reconnecting (as EventSource does) is refused.
    const again = await fetch(`${b.base}/activity/stream`, { headers: { cookie: session.cookie } });
    expect(again.status).toBe(401);
  });

  it('the live stream ends once the key it signed in with is revoked', async () => {
    const { id, key } = await adminKey();
    const session = await signIn(a.base, { api_key: key });
    const stream = await openStream(b, session);
    await a.switchboard.oauth!.admin.revokeApiKey(id);
    await streamEnds(stream);
  });
});

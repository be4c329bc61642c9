/**
 * Cloudflare Workers refuse random values, timers, I/O and more in a module's global scope ("Disallowed
 * operation called within global scope"), and that is where docs/architecture.md makes the switchboard.
 * Here the same refusals (test/runtimes/global-scope.ts, each checked against workerd by the workerd
 * smoke suite) are set up around `createSwitchboard`: constructing must need none of them, and the
 * first request (where a Worker allows them) must work.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import { REFUSED_IN_GLOBAL_SCOPE, type RefusedOperation, refusedOf } from './global-scope.js';

const ADMIN = 'sbk_module_scope_admin_key_0123456789abcdefgh';
const originalSetTimeout = globalThis.setTimeout;
const originalSetInterval = globalThis.setInterval;
const undo: (() => void)[] = [];

const refusal = (what: string): Error =>
  new Error(`Disallowed operation called within global scope: ${what}`);
const disallowed = (what: string) => (): never => {
  throw refusal(what);
};
/**
 * Refuses a timer unless a timer's callback asks for it: no timer fires in a Worker's global scope, so
 * such a call is not module-scope code but a loop another test file of this worker armed earlier (the
 * unit project keeps one process per worker).
 */
const outsideTimers =
  (what: string, original: (...args: never[]) => unknown) =>
  (...args: never[]): unknown => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = Number.POSITIVE_INFINITY;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    if (/\b(listOnTimeout|processTimers)\b/.test(stack)) return original(...args);
    throw refusal(what);
  };
/** workerd rejects the promise of an asynchronous operation rather than throwing. */
const rejected = (what: string) => (): Promise<never> => Promise.reject(refusal(what));

/** Puts `value` in place of `owner[key]` until `restore`. */
function replace(owner: object, key: string, value: unknown): void {
  const original = Object.getOwnPropertyDescriptor(owner, key);
  Object.defineProperty(owner, key, { value, configurable: true, writable: true });
  undo.push(() => {
    if (original) Object.defineProperty(owner, key, original);
    else delete (owner as Record<string, unknown>)[key];
  });
}

/** The class, except that constructing it (when `when` says so) is refused. */
function refuseConstructing<T extends abstract new (...args: never[]) => unknown>(
  what: string,
  type: T,
  when: (args: readonly unknown[]) => boolean = () => true,
): T {
  return new Proxy(type, {
    construct: (target, args, newTarget) =>
      when(args) ? disallowed(what)() : Reflect.construct(target, args, newTarget),
  });
}

/** How each refusal is made in Node: one per operation of the list, so none can be left out. */
const REFUSE: Record<RefusedOperation, (name: string) => void> = {
  setTimeout: (name) => replace(globalThis, 'setTimeout', outsideTimers(name, originalSetTimeout)),
  setInterval: (name) => replace(globalThis, 'setInterval', outsideTimers(name, originalSetInterval)),
  'crypto.getRandomValues': (name) => replace(crypto, 'getRandomValues', disallowed(name)),
  'crypto.randomUUID': (name) => replace(crypto, 'randomUUID', disallowed(name)),
  'crypto.subtle.generateKey': (name) => replace(crypto.subtle, 'generateKey', rejected(name)),
  fetch: (name) => replace(globalThis, 'fetch', rejected(name)),
  'new AbortController': (name) =>
    replace(globalThis, 'AbortController', refuseConstructing(name, AbortController)),
  'AbortSignal.abort': (name) => replace(AbortSignal, 'abort', disallowed(name)),
  'AbortSignal.any': (name) => replace(AbortSignal, 'any', disallowed(name)),
  'AbortSignal.timeout': (name) => replace(AbortSignal, 'timeout', disallowed(name)),
  'new Response': (name) => replace(globalThis, 'Response', refuseConstructing(name, Response)),
  'Response.json': (name) => replace(Response, 'json', disallowed(name)),
  'Response.redirect': (name) => replace(Response, 'redirect', disallowed(name)),
  'new Request with a body': (name) =>
    replace(
      globalThis,
      'Request',
      refuseConstructing(name, Request, ([, init]) => (init as RequestInit | undefined)?.body != null),
    ),
  'new TransformStream': (name) =>
    replace(globalThis, 'TransformStream', refuseConstructing(name, TransformStream)),
  'new WritableStream': (name) =>
    replace(globalThis, 'WritableStream', refuseConstructing(name, WritableStream)),
  'new TextEncoderStream': (name) =>
    replace(globalThis, 'TextEncoderStream', refuseConstructing(name, TextEncoderStream)),
  'new CompressionStream': (name) =>
    replace(globalThis, 'CompressionStream', refuseConstructing(name, CompressionStream)),
};

/**
 * Runs `work` as a Worker's global scope would: every operation of the list throws (or rejects), also
 * in the promise jobs `work` leaves behind, which a Worker runs before the scope ends (workerd refused
 * the admin key's id there, after the constructor had returned).
 */
async function inGlobalScope<T>(work: () => T): Promise<T> {
  for (const [name, refuse] of Object.entries(REFUSE)) refuse(name);
  try {
    const made = work();
    // Work the constructor left behind runs under the refusals too, however long it takes in a Worker;
    // 100 ms covers Web Crypto's thread-pool jobs, which one task (setTimeout 0) did not on Node 24.
    await new Promise((resolve) => originalSetTimeout(resolve, 100));
    return made;
  } finally {
    restore();
  }
}

function restore(): void {
  for (let step = undo.pop(); step; step = undo.pop()) step();
}

afterEach(restore);

describe('a module scope that refuses what a Worker refuses', () => {
  it('refuses every operation of the list, and nothing once it has ended', async () => {
    let refused: Promise<string[]> | undefined;
    await inGlobalScope(() => {
      refused = refusedOf(REFUSED_IN_GLOBAL_SCOPE);
    });
    expect((await refused)?.sort()).toEqual(Object.keys(REFUSED_IN_GLOBAL_SCOPE).sort());
    const { fetch: _io, ...local } = REFUSED_IN_GLOBAL_SCOPE;
    expect(await refusedOf(local)).toEqual([]);
  });
});

describe('createSwitchboard in a module scope that refuses what a Worker refuses', () => {
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

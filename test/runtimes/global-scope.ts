/**
 * What a Worker may do in a module's global scope, one call each. workerd refuses the first group
 * ("Disallowed operation called within global scope"): timers, random values, I/O, a Response, a
 * Request with a body, and in its builds before September 2026 also an AbortController, an AbortSignal
 * and a stream with a write side. It allows the second. test/runtimes/module-scope.test.ts refuses the
 * first group around `createSwitchboard`; test/cloudflare/workerd.test.ts makes every call in its
 * probe Worker's global scope and checks that no workerd it runs refuses anything of the second.
 */

/** A call that fails when the global scope refuses it, synchronously or by a rejected promise. */
type Attempt = () => unknown;

export const REFUSED_IN_GLOBAL_SCOPE = {
  setTimeout: () => clearTimeout(setTimeout(() => {}, 0)),
  setInterval: () => clearInterval(setInterval(() => {}, 60_000)),
  'crypto.getRandomValues': () => crypto.getRandomValues(new Uint8Array(4)),
  'crypto.randomUUID': () => crypto.randomUUID(),
  'crypto.subtle.generateKey': () =>
    crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
  fetch: () => fetch('http://127.0.0.1:9/'),
  'new AbortController': () => new AbortController(),
  'AbortSignal.abort': () => AbortSignal.abort(),
  'AbortSignal.any': () => AbortSignal.any([]),
  'AbortSignal.timeout': () => AbortSignal.timeout(60_000),
  'new Response': () => new Response(null),
  'Response.json': () => Response.json({}),
  'Response.redirect': () => Response.redirect('http://worker.example/'),
  'new Request with a body': () => new Request('http://worker.example/', { method: 'POST', body: 'x' }),
  'new TransformStream': () => new TransformStream(),
  'new WritableStream': () => new WritableStream(),
  'new TextEncoderStream': () => new TextEncoderStream(),
  'new CompressionStream': () => new CompressionStream('gzip'),
} satisfies Record<string, Attempt>;

export type RefusedOperation = keyof typeof REFUSED_IN_GLOBAL_SCOPE;

export const ALLOWED_IN_GLOBAL_SCOPE = {
  queueMicrotask: () => queueMicrotask(() => {}),
  'Math.random': () => Math.random(),
  'Date.now': () => Date.now(),
  'new Request': () => new Request('http://worker.example/', { headers: { accept: 'application/json' } }),
  'new Headers': () => new Headers({ accept: 'application/json' }),
  'new URL': () => new URL('http://worker.example/path?query'),
  'new TextEncoder': () => new TextEncoder().encode('x'),
  'new TextDecoder': () => new TextDecoder().decode(new Uint8Array(1)),
  'new ReadableStream': () => new ReadableStream(),
  'new EventTarget': () => new EventTarget(),
  structuredClone: () => structuredClone({ a: [1] }),
  'crypto.subtle.importKey': () =>
    crypto.subtle.importKey('raw', new Uint8Array(32), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
  'crypto.subtle.digest': () => crypto.subtle.digest('SHA-256', new Uint8Array(1)),
} satisfies Record<string, Attempt>;

const DISALLOWED = /Disallowed operation called within global scope/;

/** The names of the calls the scope refused; the asynchronous ones are awaited. */
export async function refusedOf(attempts: Readonly<Record<string, Attempt>>): Promise<string[]> {
  const outcomes = Object.entries(attempts).map(async ([name, attempt]) => {
    try {
      await attempt();
      return null;
    } catch (error) {
      if (DISALLOWED.test(String(error))) return name;
      throw new Error(`${name} failed for another reason: ${String(error)}`);
    }
  });
  return (await Promise.all(outcomes)).filter((name) => name !== null);
}

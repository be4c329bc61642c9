/**
 * What the Node adapter's light objects share: a class that stands in for undici's `Request` or
 * `Response`, answering a few fields itself and every other one from the real object it builds when
 * first asked, and the one way such a class replaces the global.
 */

/**
 * Gives `standIn` every field of `real`'s prototype that it does not define itself, each read from
 * `realOf(this)`, and puts `real` under it, so `instanceof` holds.
 */
export function standInFor<T extends object>(
  standIn: { readonly prototype: object },
  real: { readonly prototype: T },
  realOf: (self: never) => T,
): void {
  for (const name of Object.getOwnPropertyNames(real.prototype)) {
    if (name === 'constructor' || Object.hasOwn(standIn.prototype, name)) continue;
    const field = Object.getOwnPropertyDescriptor(real.prototype, name)!;
    const key = name as keyof T;
    Object.defineProperty(
      standIn.prototype,
      name,
      typeof field.value === 'function'
        ? {
            value(this: never, ...args: unknown[]) {
              const target = realOf(this);
              return (target[key] as (...a: unknown[]) => unknown).apply(target, args);
            },
          }
        : {
            get(this: never) {
              return realOf(this)[key];
            },
          },
    );
  }
  Object.setPrototypeOf(standIn.prototype, real.prototype);
}

/**
 * Where a replaced global keeps the class it stands over. A registry symbol, so every copy of the
 * library in a process (its ESM and CommonJS builds, two bundles) sees what another copy did.
 */
const REAL = Symbol.for('switchboard-kit.node.real-global');

/**
 * undici's own `Request` or `Response`, even after this or another copy of the library replaced the
 * global: what the stand-ins build on, and what they must sit over for undici's fields to work.
 */
export function realGlobal<K extends 'Request' | 'Response'>(name: K): (typeof globalThis)[K] {
  const current = globalThis[name] as (typeof globalThis)[K] & { [REAL]?: (typeof globalThis)[K] };
  return current[REAL] ?? current;
}

/**
 * Makes the global `Request` or `Response` the stand-in `make` builds over undici's, once per
 * process: a later call, from this copy of the library or another, finds a replacement there and
 * leaves it.
 */
export function replaceGlobal<K extends 'Request' | 'Response'>(
  name: K,
  make: (real: (typeof globalThis)[K]) => (typeof globalThis)[K],
): void {
  if (Object.hasOwn(globalThis[name], REAL)) return;
  const real = globalThis[name];
  const replacement = make(real);
  Object.defineProperty(replacement, REAL, { value: real });
  Object.defineProperty(globalThis, name, { value: replacement, writable: true, configurable: true });
}

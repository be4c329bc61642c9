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

/** The classes {@link replaceGlobal} made, so a second call finds its own and leaves it. */
const made = new WeakSet<object>();

/**
 * Makes the global `Request` or `Response` the stand-in `make` builds over the current one, once per
 * process: a later call finds its own class there and does nothing.
 */
export function replaceGlobal<K extends 'Request' | 'Response'>(
  name: K,
  make: (current: (typeof globalThis)[K]) => (typeof globalThis)[K],
): void {
  if (made.has(globalThis[name])) return;
  const replacement = make(globalThis[name]);
  made.add(replacement);
  Object.defineProperty(globalThis, name, { value: replacement, writable: true, configurable: true });
}

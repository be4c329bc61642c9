/**
 * What the Node adapter's light objects share: a class that stands in for undici's `Request` or
 * `Response`, answering a few fields itself and every other one from the real object it builds when
 * first asked.
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

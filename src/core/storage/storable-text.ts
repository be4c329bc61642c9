/**
 * The storage port's rule for text (docs/storage.md, "Text"): every adapter refuses what it cannot keep
 * as it was given, anywhere in what a store is handed (a record, an id to look up, a key, a filter),
 * with the same `validation_failed` error, before it reads or writes anything. The interfaces check
 * input long before this (validation.ts); this is the last line, so that a path they miss is a 422 on
 * every adapter, never a 500 on PostgreSQL and a stored NUL in memory.
 */
import { SwitchboardError } from '../errors.js';
import { summaryOf } from '../field-errors.js';
import { invalidText, isStorableValue, unstorableTextIn } from '../storable-text.js';

/**
 * The same stores, each method refusing text with NUL (U+0000) or an unpaired surrogate in its
 * arguments. Nested stores (`oauth.clients`) are wrapped too; other values are kept as they are.
 * Wrapped on first use: adapters make stores for every transaction, and most use a few of them.
 */
export function refusingUnstorableText<T extends object>(stores: T): T {
  const made = new Map<PropertyKey, { readonly of: unknown; readonly wrapped: unknown }>();
  return new Proxy(stores, {
    get(target, key) {
      const value = Reflect.get(target, key) as unknown;
      if (typeof value !== 'function' && !isPlainStore(value)) return value;
      // Kept while the store holds the same member (a test may swap one for a spy).
      const known = made.get(key);
      if (known?.of === value) return known.wrapped;
      const wrapped =
        typeof value === 'function' ? refusing(value as Method, target) : refusingUnstorableText(value);
      made.set(key, { of: value, wrapped });
      return wrapped;
    },
  });
}

/**
 * {@link refusingUnstorableText} wrapped all at once, into plain objects: for the stores an adapter makes
 * once and every request uses (those outside transactions), whose reads then cost no proxy trap and no
 * lookup of the wrapper.
 */
export function refusingUnstorableTextNow<T extends object>(stores: T): T {
  const wrapped: Record<PropertyKey, unknown> = {};
  for (const key of Reflect.ownKeys(stores)) {
    const value = Reflect.get(stores, key) as unknown;
    wrapped[key] =
      typeof value === 'function'
        ? refusing(value as Method, stores)
        : isPlainStore(value)
          ? refusingUnstorableTextNow(value)
          : value;
  }
  return wrapped as T;
}

function isPlainStore(value: unknown): value is object {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

type Method = (...args: unknown[]) => unknown;

function refusing(method: Method, self: object): Method {
  return (...args) => {
    // Every store call passes here: the check allocates nothing, the paths are found only on refusal.
    let storable = true;
    for (let i = 0; storable && i < args.length; i++) storable = isStorableValue(args[i]);
    if (storable) return method.apply(self, args);
    const fields = args.flatMap((arg) => unstorableTextIn(arg)).map((at) => at || 'value');
    const details = fields.map(invalidText);
    return Promise.reject(new SwitchboardError('validation_failed', summaryOf(details), { details }));
  };
}

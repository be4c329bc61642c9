/**
 * What text Switchboard accepts, the same on every interface and in every storage adapter: any Unicode
 * text but NUL (U+0000) and UTF-16 surrogates without their pair. Those two are what PostgreSQL's text
 * and jsonb cannot hold (NUL is refused; a lone surrogate is refused in jsonb and silently becomes U+FFFD
 * in text), so the memory adapter refuses them too and the two keep the same data (docs/storage.md).
 * And the identifiers a caller sends are bounded before they reach storage: none that is longer than
 * {@link MAX_ID_LENGTH} can name anything.
 */
import type { FieldError } from './errors.js';

/** The most characters of an id, a `client_id` or any other identifier a caller sends (ours have 41 at most). */
export const MAX_ID_LENGTH = 200;

// A NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one.
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Any NUL or surrogate at all: most text has neither, and this is cheaper than the full rule.
const SUSPECT = /[\0\uD800-\uDFFF]/;

/** Whether `text` can be stored and read back the same by every adapter. */
export function isStorableText(text: string): boolean {
  return !SUSPECT.test(text) || !UNSTORABLE.test(text);
}

/**
 * Whether every text in `value` (strings, keys, nested in arrays and plain objects) is storable: what
 * {@link unstorableTextIn} answers, without building a path for each value (it runs on every store call).
 */
export function isStorableValue(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (Array.isArray(value)) {
    for (const item of value) if (!isStorableValue(item)) return false;
    return true;
  }
  if (!isPlainObject(value)) return true;
  for (const key in value) if (!isStorableText(key) || !isStorableValue(value[key])) return false;
  return true;
}

/** Whether `id` could name a record at all: 1 to {@link MAX_ID_LENGTH} characters of storable text. */
export function isPossibleId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_ID_LENGTH && isStorableText(id);
}

/**
 * The paths (`name`, `items.0.note`) of every text in `value`, through plain objects and arrays, that is
 * not storable; an object key that is not counts too. Empty when all is well.
 */
export function unstorableTextIn(value: unknown, path: readonly (string | number)[] = []): string[] {
  if (typeof value === 'string') return isStorableText(value) ? [] : [path.join('.')];
  if (Array.isArray(value)) return value.flatMap((item, i) => unstorableTextIn(item, [...path, i]));
  if (!isPlainObject(value)) return [];
  const found: string[] = [];
  for (const key in value) {
    if (!isStorableText(key)) found.push([...path, key].join('.'));
    else found.push(...unstorableTextIn(value[key], [...path, key]));
  }
  return found;
}

/** The field error of text that cannot be stored: code `invalid_text`, one sentence for every interface. */
export function invalidText(field: string): FieldError {
  return {
    field,
    code: 'invalid_text',
    message: `${field || 'The body'} must not contain NUL (U+0000) or an unpaired surrogate (U+D800 to U+DFFF); send well-formed Unicode text.`,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

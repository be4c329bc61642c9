/** Reading a request's parts: path params, query and body, each checked before a route runs. */

import { z } from 'zod';
import { SwitchboardError } from '../core/errors.js';
import { isPossibleId, MAX_ID_LENGTH } from '../core/storable-text.js';
import { validate } from '../core/validation.js';
import { readBody } from './body.js';

/**
 * Decodes the route table's raw path params. A malformed escape cannot name any record, nor can an id
 * longer than {@link MAX_ID_LENGTH} or one holding NUL or an unpaired surrogate: each is a 404, found
 * before storage is asked (docs/rest.md, "Identifiers").
 */
export function decodeParams(raw: Record<string, string>, url: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const key in raw) {
    const value = raw[key]!;
    let decoded: string;
    try {
      decoded = value.includes('%') ? decodeURIComponent(value) : value;
    } catch {
      throw new SwitchboardError('not_found', `Nothing is served at ${new URL(url).pathname}.`);
    }
    if (!isPossibleId(decoded)) throw noSuchId(key, decoded);
    params[key] = decoded;
  }
  return params;
}

// The schemas made by idParams: what they ask of a parameter, decodeParams has checked already.
const idSchemas = new WeakSet<z.ZodType>();

/**
 * A route's `params` of ids in the path, a description each. The route table and {@link decodeParams}
 * already hold every path parameter to what an id may be (1 to {@link MAX_ID_LENGTH} characters of
 * storable text), so the pipeline does not run these schemas per request: they are what OpenAPI shows.
 */
export function idParams<K extends string>(
  descriptions: Readonly<Record<K, string>>,
): z.ZodObject<Record<K, z.ZodString>> {
  const shape = Object.fromEntries(
    Object.entries<string>(descriptions).map(([name, description]) => [
      name,
      z.string().min(1).meta({ description }),
    ]),
  ) as Record<K, z.ZodString>;
  const schema = z.object(shape);
  idSchemas.add(schema);
  return schema;
}

/** Whether `schema` is one of {@link idParams}: nothing to check beyond {@link decodeParams}. */
export function isIdParams(schema: z.ZodType): boolean {
  return idSchemas.has(schema);
}

function noSuchId(key: string, id: string): SwitchboardError {
  const why =
    id.length > MAX_ID_LENGTH
      ? `has at most ${MAX_ID_LENGTH} characters (this one has ${id.length})`
      : 'holds no NUL (U+0000) or unpaired surrogate';
  return new SwitchboardError('not_found', `Nothing has this ${key}: an id ${why}.`);
}

/**
 * Validates the query string, as `queryOf` parsed it (a repeated parameter is an array: the last value
 * counts); a bad parameter is a 400 naming every failing one.
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  parsed: Readonly<Record<string, string | string[] | undefined>>,
): z.output<S> {
  const query: Record<string, string> = {};
  for (const key in parsed) {
    const value = parsed[key];
    if (value !== undefined) query[key] = Array.isArray(value) ? value[value.length - 1]! : value;
  }
  return asBadRequest(() => validate(schema, query));
}

/** The media type of a `Content-Type` header, lower-cased, without parameters. */
export function mediaTypeOf(request: Request): string | null {
  const header = request.headers.get('content-type');
  if (!header) return null;
  return header.split(';')[0]!.trim().toLowerCase();
}

// Stateless between whole-buffer decodes (a failed one resets it), so one serves every request.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads the body within `maxBytes` and parses it as JSON after checking its media type (415) and
 * charset. Returns the raw bytes too: idempotency keys fingerprint them.
 */
export async function readJsonBody(
  request: Request,
  options: { maxBytes: number; contentTypes: readonly string[] },
): Promise<{ value: unknown; bytes: Uint8Array }> {
  const type = mediaTypeOf(request);
  const charset = /;\s*charset="?([^";\s]+)/i.exec(request.headers.get('content-type') ?? '')?.[1];
  if (type === null || !options.contentTypes.includes(type) || (charset && !/^utf-?8$/i.test(charset))) {
    throw new SwitchboardError(
      'unsupported_media_type',
      `Send the body as ${options.contentTypes.join(' or ')} (UTF-8).`,
      { details: [{ field: 'Content-Type', code: 'unsupported', message: `Got ${type ?? 'none'}.` }] },
    );
  }
  const bytes = await readBody(request, options.maxBytes);
  try {
    const text = strictUtf8.decode(bytes);
    return { value: JSON.parse(text), bytes };
  } catch {
    throw new SwitchboardError('bad_request', 'The body is not valid JSON.', {
      details: [{ field: 'body', code: 'malformed_json', message: 'Send a UTF-8 JSON document.' }],
    });
  }
}

function asBadRequest<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof SwitchboardError && error.code === 'validation_failed') {
      throw new SwitchboardError('validation_failed', error.message.replace('input', 'query'), {
        details: error.details,
        status: 400,
      });
    }
    throw error;
  }
}

/** Header values as one plain record: what every response of ours is built from, once. */
export type HeaderRecord = Record<string, string>;

/**
 * Merges header values into a record, lower-casing names. Accepts any `HeadersInit`, so callers may pass
 * what they have; a plain object of lower-case names (the usual case) is copied without a `Headers`.
 */
export function headerRecord(init: HeadersInit | undefined, into: HeaderRecord = {}): HeaderRecord {
  if (init === undefined) return into;
  if (init instanceof Headers || Array.isArray(init)) {
    for (const [name, value] of new Headers(init)) into[name] = value;
    return into;
  }
  for (const name in init) into[name.toLowerCase()] = (init as HeaderRecord)[name]!;
  return into;
}

/** A JSON response with the given status and extra headers, built in one step. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers?: HeadersInit,
  contentType = 'application/json; charset=utf-8',
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: headerRecord(headers, { 'content-type': contentType }),
  });
}

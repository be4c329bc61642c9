/** Response builders every route uses, so success answers look alike across the interface. */

export interface JsonOptions {
  readonly status?: number;
  readonly headers?: HeadersInit;
  /**
   * The record's `version`: becomes a strong `ETag` that `If-Match` can name. Without it, GET answers
   * get an ETag hashed from the body.
   */
  readonly version?: number;
}

/**
 * A JSON answer (200 unless told otherwise).
 *
 * @example
 * return json(client, { version: client.version });
 */
export function json(body: unknown, options: JsonOptions = {}): Response {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (options.version !== undefined) headers.etag = versionTag(options.version);
  const response = new Response(text, { status: options.status ?? 200, headers });
  if (options.headers)
    for (const [name, value] of new Headers(options.headers)) response.headers.set(name, value);
  (response as TextCarrier)[JSON_TEXT] = text;
  return response;
}

/**
 * `201 Created` with the new resource and its URL in `Location` (RFC 9110 §15.3.2).
 *
 * @example
 * return created(client, `${basePath}/clients/${client.id}`, { version: client.version });
 */
export function created(body: unknown, location: string, options: JsonOptions = {}): Response {
  const response = json(body, { ...options, status: 201 });
  response.headers.set('location', location);
  return response;
}

/** `204 No Content`: no body, no content type (RFC 9110 §15.3.5). */
export function noContent(): Response {
  return new Response(null, { status: 204 });
}

/** The strong entity tag of a record version, e.g. `"3"`. */
export function versionTag(version: number): string {
  return `"${version}"`;
}

// The text of each JSON answer built here rides on the response, so an ETag can be hashed without
// reading the body back (a symbol property: cheaper for the GC than a WeakMap entry per response).
const JSON_TEXT = Symbol('switchboard.jsonText');

interface TextCarrier {
  [JSON_TEXT]?: string;
}

/** The serialised body of a response made by {@link json}, if it was. */
export function jsonTextOf(response: Response): string | undefined {
  return (response as TextCarrier)[JSON_TEXT];
}

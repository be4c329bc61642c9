/**
 * What routes answer with: an {@link Answer} (status, header fields, body), made by the builders every
 * route uses so that success answers look alike. The pipeline finishes it (ETag, Cache-Control, Vary,
 * CORS, deprecation, RateLimit fields) and only then turns it into a `Response`, once.
 */
import { type HeaderRecord, headerRecord } from './json.js';

/**
 * A route's answer as data. `headers` is the answer's own record (lower-case names): the pipeline adds
 * its fields to it before the `Response` is built, so make a fresh answer per request (the builders
 * do). A route that must answer with a Web `Response` itself (a redirect, a stream, a proxied `fetch`)
 * may; the pipeline then sets its fields on that response's headers, copying it first only if they are
 * immutable.
 */
export interface Answer {
  readonly status: number;
  readonly headers: HeaderRecord;
  /** The body as text (JSON for the builders', its type in `content-type`), or null for none. */
  readonly body: string | null;
}

/** How {@link json} and {@link created} answer: the status, extra header fields, the record's version. */
export interface JsonOptions {
  readonly status?: number;
  /** Extra header fields: they reach the client with the pipeline's own. */
  readonly headers?: HeadersInit;
  /**
   * The record's `version`: becomes a strong `ETag` that `If-Match` can name. Without it, GET answers
   * get an ETag hashed from the body.
   */
  readonly version?: number;
}

/**
 * A JSON answer (200 unless told otherwise), serialised here once.
 *
 * @example
 * return json(client, { version: client.version });
 */
export function json(body: unknown, options: JsonOptions = {}): Answer {
  const headers: HeaderRecord = { 'content-type': 'application/json; charset=utf-8' };
  if (options.version !== undefined) headers.etag = versionTag(options.version);
  return {
    status: options.status ?? 200,
    headers: options.headers === undefined ? headers : headerRecord(options.headers, headers),
    body: JSON.stringify(body),
  };
}

/**
 * `201 Created` with the new resource and its URL in `Location` (RFC 9110 §15.3.2).
 *
 * @example
 * return created(client, `${basePath}/clients/${client.id}`, { version: client.version });
 */
export function created(body: unknown, location: string, options: JsonOptions = {}): Answer {
  return json(body, { ...options, status: 201, headers: headerRecord(options.headers, { location }) });
}

/** `204 No Content`: no body, no content type (RFC 9110 §15.3.5). */
export function noContent(options: { readonly headers?: HeadersInit } = {}): Answer {
  return { status: 204, headers: headerRecord(options.headers), body: null };
}

/** The strong entity tag of a record version, e.g. `"3"`. */
export function versionTag(version: number): string {
  return `"${version}"`;
}

/** Whether a route answered with an {@link Answer} rather than a `Response` of its own. */
export function isAnswer(answer: Answer | Response): answer is Answer {
  // Not `instanceof`: a proxied fetch's Response need not be of the global class (the Node adapter
  // replaces it on Node).
  return typeof (answer as Partial<Response>).arrayBuffer !== 'function';
}

/** The `Response` of an answer, built in one step (no body for HEAD). */
export function toResponse(answer: Answer, options: { readonly head?: boolean } = {}): Response {
  return new Response(options.head ? null : answer.body, { status: answer.status, headers: answer.headers });
}

/**
 * A header record seen through the three `Headers` methods the finishing steps use, so that CORS and
 * deprecation fields land in an answer without a `Headers` object. Names are lower case.
 */
export class RecordHeaders implements Pick<Headers, 'has' | 'set' | 'append'> {
  constructor(private readonly record: HeaderRecord) {}

  has(name: string): boolean {
    return this.record[name.toLowerCase()] !== undefined;
  }

  set(name: string, value: string): void {
    this.record[name.toLowerCase()] = value;
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const current = this.record[key];
    this.record[key] = current === undefined ? value : `${current}, ${value}`;
  }
}

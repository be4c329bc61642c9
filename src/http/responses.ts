/** Response builders every route uses, so success answers look alike across the interface. */
import { type HeaderRecord, headerRecord } from './json.js';

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
 * A JSON answer (200 unless told otherwise). The handler set finishes it (ETag, Cache-Control, CORS,
 * deprecation) from what is passed here, building the final headers once: give extra headers in
 * `options.headers` rather than changing `response.headers` afterwards.
 *
 * @example
 * return json(client, { version: client.version });
 */
export function json(body: unknown, options: JsonOptions = {}): Response {
  const text = JSON.stringify(body);
  const headers: HeaderRecord = { 'content-type': 'application/json; charset=utf-8' };
  if (options.version !== undefined) headers.etag = versionTag(options.version);
  const draft: Draft = {
    text,
    status: options.status ?? 200,
    headers: headerRecord(options.headers, headers),
  };
  const response = new Response(text, { status: draft.status, headers: { ...draft.headers } });
  (response as DraftCarrier)[DRAFT] = draft;
  return response;
}

/**
 * `201 Created` with the new resource and its URL in `Location` (RFC 9110 §15.3.2).
 *
 * @example
 * return created(client, `${basePath}/clients/${client.id}`, { version: client.version });
 */
export function created(body: unknown, location: string, options: JsonOptions = {}): Response {
  return json(body, { ...options, status: 201, headers: headerRecord(options.headers, { location }) });
}

/** `204 No Content`: no body, no content type (RFC 9110 §15.3.5). */
export function noContent(): Response {
  return new Response(null, { status: 204 });
}

/** The strong entity tag of a record version, e.g. `"3"`. */
export function versionTag(version: number): string {
  return `"${version}"`;
}

/** What {@link json} made a response from: the handler set adds its headers here and builds it once. */
export interface Draft {
  readonly text: string;
  readonly status: number;
  readonly headers: HeaderRecord;
}

// A symbol property rides on the response: cheaper for the GC than a WeakMap entry per response.
const DRAFT = Symbol('switchboard.draft');

interface DraftCarrier {
  [DRAFT]?: Draft;
}

/** The draft of a response made by {@link json}, if it was. */
export function draftOf(response: Response): Draft | undefined {
  return (response as DraftCarrier)[DRAFT];
}

/** The response a draft describes now, built in one step (no body for HEAD). */
export function fromDraft(draft: Draft, options: { head?: boolean } = {}): Response {
  return new Response(options.head ? null : draft.text, { status: draft.status, headers: draft.headers });
}

/**
 * A header record seen through the three `Headers` methods the finishing steps use, so that CORS and
 * deprecation headers land in a draft without a `Headers` object. Names are lower case.
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

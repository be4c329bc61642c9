import type { IncomingMessage } from 'node:http';
import { SwitchboardError } from '../core/errors.js';

/** What body parsers leave on a request they read: `req.body` (Express, body-parser) and `req.rawBody`. */
interface ParsedRequest extends IncomingMessage {
  readonly body?: unknown;
  readonly rawBody?: unknown;
}

const utf8 = new TextEncoder();

/**
 * Whether something has read the request's stream before us, typically a framework's body parser
 * (`express.json()` ahead of the mount). Reading it again would fail: its bytes are gone.
 */
export function bodyWasRead(req: IncomingMessage): boolean {
  // An empty body ends without a read.
  return req.readableDidRead || req.readableEnded;
}

/**
 * The body of a request whose stream was already read, rebuilt from what the reader left, in this
 * order (docs/node.md, "Body parsers ahead of the mount"):
 *
 * 1. `Content-Length: 0`: an empty body (a parser's `{}` was never sent).
 * 2. `req.rawBody` (a Buffer, Uint8Array or string): byte for byte.
 * 3. `req.body` as a Buffer, Uint8Array or string (`express.raw()`, `express.text()`): as it is.
 * 4. `req.body` parsed from JSON (`application/json`, `application/*+json`): `JSON.stringify` again.
 * 5. `req.body` parsed from `application/x-www-form-urlencoded` (string and string-list values): a
 *    `URLSearchParams` again.
 *
 * `headers` are corrected to describe what is handed on: `content-length` is its size, and
 * `transfer-encoding` goes; `content-encoding` goes too when the body comes from `req.body`, which
 * parsers have already decompressed. A rebuilt body (4, 5) says the same thing but is not the same
 * bytes, so a hash or signature over the raw body (an `Idempotency-Key` fingerprint, a webhook
 * signature) will differ from the sender's.
 *
 * Anything else cannot be rebuilt: the body becomes a stream that fails with a `bad_request` when it
 * is read, so routes that never read a body still answer.
 */
export function consumedBody(req: IncomingMessage, headers: Headers): BodyInit {
  const { rawBody, body } = req as ParsedRequest;
  if (headers.get('content-length') === '0') return new Uint8Array(0);
  if (isText(rawBody)) return handOn(headers, bytesOf(rawBody), { decoded: false });
  if (isText(body)) return handOn(headers, bytesOf(body), { decoded: true });
  if (body !== undefined) {
    const text = serialize(body, mediaTypeOf(headers.get('content-type')));
    if (text !== undefined) return handOn(headers, utf8.encode(text), { decoded: true });
  }
  return unreadable();
}

function handOn(headers: Headers, bytes: Uint8Array, options: { decoded: boolean }): BodyInit {
  headers.set('content-length', String(bytes.byteLength));
  headers.delete('transfer-encoding');
  if (options.decoded) headers.delete('content-encoding');
  // A parser's Buffer is a view of an ArrayBuffer (Node pools them), never of a SharedArrayBuffer.
  return bytes as Uint8Array<ArrayBuffer>;
}

function isText(value: unknown): value is Uint8Array | string {
  return value instanceof Uint8Array || typeof value === 'string';
}

function bytesOf(value: Uint8Array | string): Uint8Array {
  return typeof value === 'string' ? utf8.encode(value) : value;
}

function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** The parsed body written again in its media type; undefined when it cannot be. */
function serialize(body: unknown, mediaType: string): string | undefined {
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      return JSON.stringify(body);
    } catch {
      return undefined;
    }
  }
  if (mediaType === 'application/x-www-form-urlencoded' && typeof body === 'object' && body !== null) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body)) {
      const values: unknown[] = Array.isArray(value) ? value : [value];
      // A nested value (`qs`'s `a[b]=c`) has no one way back to the form that was sent.
      if (!values.every((v) => typeof v === 'string')) return undefined;
      for (const v of values as string[]) form.append(name, v);
    }
    return form.toString();
  }
  return undefined;
}

/**
 * A body that fails with a `bad_request` when read, not before: nothing is read unless the handler
 * asks (highWaterMark 0).
 */
function unreadable(): ReadableStream<Uint8Array> {
  const error = new SwitchboardError(
    'bad_request',
    'The request body was read before it reached Switchboard (a body parser is mounted ahead of it) and ' +
      'cannot be rebuilt. Mount Switchboard before body parsers, or keep the raw body in req.rawBody.',
  );
  return new ReadableStream<Uint8Array>(
    { pull: (controller) => controller.error(error) },
    { highWaterMark: 0 },
  );
}

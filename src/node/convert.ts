import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { bodyWasRead, consumedBody } from './consumed-body.js';

/**
 * Turns a node:http request into a Web `Request`. The body is streamed, not buffered, and the request's
 * signal aborts when the client goes away. The peer's address is not part of a Web `Request`: give it
 * to the handler as its second argument, `{ clientAddress: req.socket.remoteAddress }`, for rate limits.
 *
 * When a framework's body parser has already read the stream (`express.json()` mounted ahead), the
 * body is rebuilt from what it left on the request: `req.rawBody`, else a Buffer or string `req.body`,
 * else a parsed JSON or URL-encoded `req.body` serialized again, with `content-length` corrected. A
 * rebuilt body is not byte-identical, so signatures and hashes over the raw body differ: mount
 * Switchboard before body parsers where you can. A body that cannot be rebuilt fails with a
 * `bad_request` when read (docs/node.md).
 *
 * @example
 * import { toWebRequest, writeWebResponse } from 'switchboard-kit/node';
 * createServer(async (req, res) => {
 *   const request = toWebRequest(req, res, 'http://localhost');
 *   await writeWebResponse(await switchboard.fetch(request, { clientAddress: req.socket.remoteAddress }), res);
 * });
 */
export function toWebRequest(req: IncomingMessage, res: ServerResponse, origin: string): Request {
  return webRequestOf(req, res, origin);
}

/** {@link toWebRequest} with the header fields a view of the request already holds (and may have changed). */
export function webRequestOf(
  req: IncomingMessage,
  res: ServerResponse,
  origin: string,
  fields?: Headers,
): Request {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = fields ?? new Headers();
  if (!fields)
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = {
    method: req.method,
    headers,
    signal: controller.signal,
  };
  if (hasBody) {
    init.body = bodyWasRead(req)
      ? consumedBody(req, headers)
      : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
    init.duplex = 'half';
  }
  return new Request(new URL(req.url ?? '/', origin), init);
}

/**
 * Writes a Web `Response` to node:http, streaming the body with back-pressure. A body that is all there
 * at once (a text or bytes answer) goes out in one piece with its `content-length`; a stream (an event
 * stream) as it comes, and its reader is cancelled when the client goes away.
 *
 * @example
 * await writeWebResponse(await switchboard.fetch(toWebRequest(req, res, 'http://localhost')), res);
 */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  if (!response.body) {
    res.writeHead(response.status, response.statusText || undefined, headers);
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const stop = (): void => void reader.cancel().catch(() => {});
  res.once('close', stop);
  try {
    // What is there already, up to 64 KiB: the whole body, unless it is a stream still being written.
    const start: Uint8Array[] = [];
    let size = 0;
    let next: Promise<ReadableStreamReadResult<Uint8Array>> | undefined = reader.read();
    while (size <= AT_ONCE_BYTES) {
      const chunk = await readyOrNot(next);
      if (chunk === NOT_YET) break;
      next = undefined;
      if (chunk.done) {
        headers['content-length'] ??= String(size);
        break;
      }
      start.push(chunk.value);
      size += chunk.value.byteLength;
      next = reader.read();
    }
    res.writeHead(response.status, response.statusText || undefined, headers);
    for (const bytes of start) res.write(bytes);
    // The rest as it comes, with back-pressure.
    while (next && !res.destroyed) {
      const { done, value } = await next;
      if (done || res.destroyed) break;
      if (!res.write(value))
        await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
      next = reader.read();
    }
  } finally {
    res.off('close', stop);
    stop();
    res.end();
  }
}

const NOT_YET = Symbol('not yet');
/** How much of a body at hand is gathered to send with its length; past it, the rest is streamed. */
const AT_ONCE_BYTES = 64 * 1024;

/** The read's result if the stream has it at hand (a few microtasks), else NOT_YET; the read stays pending. */
function readyOrNot<T>(read: Promise<T>): Promise<T | typeof NOT_YET> {
  return Promise.race([read, Promise.resolve().then(() => Promise.resolve(NOT_YET))]);
}

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
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const headers = new Headers();
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
 * Writes a Web `Response` to node:http, streaming the body with back-pressure.
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
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) break;
      if (!res.write(value))
        await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
    }
  } finally {
    reader.cancel().catch(() => {});
    res.end();
  }
}

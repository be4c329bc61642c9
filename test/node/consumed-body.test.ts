/**
 * A body a framework read before Switchboard (a body parser mounted ahead of it) is rebuilt from what
 * the parser left on the request, through both Node entry points: `toWebRequest` and
 * `createRequestListener`. Never the undici "disturbed or locked" TypeError.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/core/errors.js';
import { clientAddressOf } from '../../src/http/client-address.js';
import { problemResponse } from '../../src/http/problem.js';
import { type ConnectionInfo, requestContext } from '../../src/http/request-context.js';
import { createRequestListener, toWebRequest, writeWebResponse } from '../../src/node/index.js';

/** What a body parser leaves: it gets the bytes it read and the request, and sets fields on it. */
type Parser = (req: IncomingMessage & { body?: unknown; rawBody?: unknown }, bytes: Buffer) => void;

/** Echoes what the handler received; a body that cannot be read is the error's problem document. */
async function echo(request: Request, info?: ConnectionInfo): Promise<Response> {
  try {
    const body = request.method === 'DELETE' ? null : await request.text();
    return Response.json({
      body,
      contentLength: request.headers.get('content-length'),
      contentEncoding: request.headers.get('content-encoding'),
      address: clientAddressOf(requestContext(request, info)),
    });
  } catch (error) {
    return problemResponse(error instanceof SwitchboardError ? error : new Error(String(error)));
  }
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const adapters = {
  toWebRequest: (req: IncomingMessage, res: ServerResponse) =>
    echo(toWebRequest(req, res, 'http://localhost'), { clientAddress: req.socket.remoteAddress }).then(
      (response) => writeWebResponse(response, res),
    ),
  createRequestListener: createRequestListener(echo),
};

/** A server whose "framework" reads the whole body, hands it to `parse`, then calls the adapter. */
async function behindParser(adapter: keyof typeof adapters, parse: Parser | null): Promise<string> {
  const server = createServer((req, res) => {
    if (!parse) return void adapters[adapter](req, res);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      parse(req, Buffer.concat(chunks));
      void adapters[adapter](req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Echo {
  body: string | null;
  contentLength: string | null;
  contentEncoding: string | null;
  address: string;
}

async function send(base: string, init: RequestInit): Promise<{ status: number; echo: Echo }> {
  const response = await fetch(`${base}/things`, { method: 'POST', ...init });
  return { status: response.status, echo: (await response.json()) as Echo };
}

const json = (body: string, type = 'application/json'): RequestInit => ({
  headers: { 'content-type': type },
  body,
});

for (const adapter of ['toWebRequest', 'createRequestListener'] as const) {
  describe(`${adapter} after a body parser`, () => {
    it('streams an unread body untouched, and records the peer address', async () => {
      const base = await behindParser(adapter, null);
      const { echo } = await send(base, json('{ "a" : 1 }'));
      expect(echo.body).toBe('{ "a" : 1 }');
      expect(echo.address).toBe('127.0.0.1');
    });

    it('hands on req.rawBody byte for byte', async () => {
      const base = await behindParser(adapter, (req, bytes) => {
        req.rawBody = bytes;
        req.body = JSON.parse(bytes.toString());
      });
      const { echo } = await send(base, json('{ "a" : 1 }'));
      expect(echo.body).toBe('{ "a" : 1 }');
      expect(echo.contentLength).toBe('11');
    });

    it('hands on a Buffer or string req.body as it is (express.raw, express.text)', async () => {
      const raw = await behindParser(adapter, (req, bytes) => {
        req.body = bytes;
      });
      expect((await send(raw, json('{ "raw" : true }'))).echo.body).toBe('{ "raw" : true }');
      const text = await behindParser(adapter, (req, bytes) => {
        req.body = bytes.toString();
      });
      const { echo } = await send(text, json('{ "text" : "é" }'));
      expect(echo.body).toBe('{ "text" : "é" }');
      expect(echo.contentLength).toBe(String(Buffer.byteLength('{ "text" : "é" }')));
    });

    it('serializes a parsed JSON body again, with the content-length of what it hands on', async () => {
      const base = await behindParser(adapter, (req, bytes) => {
        req.body = JSON.parse(bytes.toString());
      });
      const { echo } = await send(base, json('{ "name" : "Ada",  "tags": ["x"] }'));
      expect(echo.body).toBe('{"name":"Ada","tags":["x"]}');
      expect(echo.contentLength).toBe(String('{"name":"Ada","tags":["x"]}'.length));
      const patch = await send(base, json('{ "city" : null }', 'application/merge-patch+json'));
      expect(patch.echo.body).toBe('{"city":null}');
    });

    it('drops content-encoding from a body the parser decompressed', async () => {
      const base = await behindParser(adapter, (req) => {
        req.body = { decompressed: true };
      });
      const { echo } = await send(base, {
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: 'pretend this was gzip',
      });
      expect(echo.body).toBe('{"decompressed":true}');
      expect(echo.contentEncoding).toBeNull();
    });

    it('serializes a parsed URL-encoded form again, repeated fields included', async () => {
      const base = await behindParser(adapter, (req, bytes) => {
        const body: Record<string, string | string[]> = {};
        for (const [name, value] of new URLSearchParams(bytes.toString())) {
          const seen = body[name];
          body[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
        }
        req.body = body;
      });
      const { echo } = await send(base, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&scope=a+b&x=1&x=2',
      });
      expect(new URLSearchParams(echo.body ?? '').getAll('x')).toEqual(['1', '2']);
      expect(new URLSearchParams(echo.body ?? '').get('scope')).toBe('a b');
    });

    it("keeps an empty body empty (Content-Length: 0), whatever the parser's stand-in", async () => {
      const base = await behindParser(adapter, (req) => {
        req.body = {};
      });
      const { echo } = await send(base, { headers: { 'content-type': 'application/json' }, body: '' });
      expect(echo.body).toBe('');
    });

    it('answers 400 bad_request, not a TypeError, when the body cannot be rebuilt', async () => {
      const lost = await behindParser(adapter, () => {});
      const answer = await fetch(`${lost}/things`, { method: 'POST', ...json('{"a":1}') });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({
        code: 'bad_request',
        detail: expect.stringContaining('Mount Switchboard before body parsers'),
      });
      const nested = await behindParser(adapter, (req) => {
        req.body = { a: { b: 'c' } };
      });
      const form = await send(nested, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a[b]=c',
      });
      expect(form.status).toBe(400);
    });

    it('still answers a request whose handler never reads the lost body', async () => {
      const base = await behindParser(adapter, () => {});
      const { status, echo } = await send(base, { method: 'DELETE', ...json('{"a":1}') });
      expect(status).toBe(200);
      expect(echo.body).toBeNull();
    });
  });
}

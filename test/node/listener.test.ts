import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestListener, type RequestListener } from '../../src/node/index.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => {
      const closed = new Promise((resolve) => s.close(resolve));
      s.closeAllConnections();
      return closed;
    }),
  );
});

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A raw request whose Host header we choose (fetch would not send a bad one). */
function rawGet(
  base: string,
  host: string,
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/`, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('createRequestListener', () => {
  // false first: once overridden, the globals stay so for the rest of the process.
  for (const overrideGlobals of [false, true]) {
    it(`serves a fetch handler in a plain node:http server (overrideGlobals: ${overrideGlobals})`, async () => {
      const base = await listen(
        createRequestListener(
          async (request) =>
            new Response(
              JSON.stringify({ path: new URL(request.url).pathname, body: await request.text() }),
              {
                status: 201,
                headers: { 'content-type': 'application/json', 'x-one': '1' },
              },
            ),
          { overrideGlobals },
        ),
      );
      const response = await fetch(`${base}/things?x=1`, { method: 'POST', body: 'hello' });
      expect(response.status).toBe(201);
      expect(response.headers.get('x-one')).toBe('1');
      // A string body goes out in one piece with its length, not chunked.
      expect(response.headers.get('content-length')).toBe(String('{"path":"/things","body":"hello"}'.length));
      expect(await response.json()).toEqual({ path: '/things', body: 'hello' });
    });
  }

  // false first, as above.
  for (const overrideGlobals of [false, true]) {
    it(`lets a handler re-target the request it was given with new Request(request, init) (overrideGlobals: ${overrideGlobals})`, async () => {
      const base = await listen(
        createRequestListener(
          async (request) => {
            const headers = new Headers(request.headers);
            headers.set('x-added', 'yes');
            const copy = new Request(request, { headers });
            return Response.json({
              url: copy.url,
              added: copy.headers.get('x-added'),
              sent: copy.headers.get('x-sent'),
              body: await copy.text(),
              isRequest: copy instanceof Request && request instanceof Request,
            });
          },
          { overrideGlobals },
        ),
      );
      const response = await fetch(`${base}/mcp?x=1`, {
        method: 'POST',
        headers: { 'x-sent': 'a' },
        body: 'hi',
      });
      expect(await response.json()).toEqual({
        url: `${base}/mcp?x=1`,
        added: 'yes',
        sent: 'a',
        body: 'hi',
        isRequest: true,
      });
    });
  }

  it('answers a request whose Host header is not a valid host with 400, not a crash', async () => {
    const base = await listen(createRequestListener(async () => new Response('never')));
    const answer = await rawGet(base, 'bad host/with spaces');
    expect(answer.status).toBe(400);
    // The same problem+json (RFC 9457) every other answer of the library uses.
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({
      type: '/problems/bad_request',
      status: 400,
      code: 'bad_request',
    });
  });

  it('answers 500 with a generic message when the handler throws, and logs the error', async () => {
    const lines: string[] = [];
    const base = await listen(
      createRequestListener(
        async () => {
          throw new Error('secret internals');
        },
        { logger: { log: (_level, message, fields) => lines.push(`${message} ${JSON.stringify(fields)}`) } },
      ),
    );
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const body = await response.text();
    expect(body).not.toContain('secret internals');
    expect(JSON.parse(body)).toMatchObject({ type: '/problems/internal', status: 500, code: 'internal' });
    expect(lines.join('\n')).toContain('secret internals');
  });

  it("gives the handler a Request read from node:http that behaves as undici's", async () => {
    let seen: Record<string, unknown> = {};
    const base = await listen(
      createRequestListener(async (request) => {
        const copy = request.clone();
        seen = {
          isRequest: request instanceof Request && request.headers instanceof Headers,
          method: request.method,
          url: request.url,
          // A repeated field, as a Web Headers joins it (node:http keeps the first Authorization).
          authorization: request.headers.get('authorization'),
          thing: request.headers.get('x-thing'),
          missing: request.headers.get('x-missing'),
          has: request.headers.has('X-Thing'),
          body: await request.json(),
          bodyUsed: request.bodyUsed,
          cloned: await copy.text(),
        };
        return new Response(null, { status: 204 });
      }),
    );
    const answer = await rawRequest(base, [
      'POST /a/./b/../c%2F?q=1 HTTP/1.1',
      'Host: example.test:8080',
      'Authorization: Bearer one',
      'Authorization: Bearer two',
      'X-Thing: a',
      'X-Thing: b',
      'Content-Type: application/json',
      'Content-Length: 9',
      'Connection: close',
      '',
      '{"n": 42}',
    ]);
    expect(answer).toMatch(/^HTTP\/1.1 204/);
    expect(seen).toEqual({
      isRequest: true,
      method: 'POST',
      url: 'http://example.test:8080/a/c%2F?q=1',
      authorization: 'Bearer one, Bearer two',
      thing: 'a, b',
      missing: null,
      has: true,
      body: { n: 42 },
      bodyUsed: true,
      cloned: '{"n": 42}',
    });
  });

  it('refuses an absolute-form target naming another host than Host with 400', async () => {
    const base = await listen(createRequestListener(async (request) => new Response(request.url)));
    const other = await rawRequest(base, [
      'GET http://elsewhere.test/x HTTP/1.1',
      'Host: example.test',
      'Connection: close',
      '',
      '',
    ]);
    expect(other).toMatch(/^HTTP\/1.1 400/);
    const same = await rawRequest(base, [
      'GET http://example.test/x?y HTTP/1.1',
      'Host: example.test',
      'Connection: close',
      '',
      '',
    ]);
    expect(same).toMatch(/^HTTP\/1.1 200/);
    expect(same).toContain('http://example.test/x?y');
  });

  it('writes a light response as undici would: its default content type, changed fields, bodiless statuses', async () => {
    const base = await listen(
      createRequestListener(async (request) => {
        const { pathname } = new URL(request.url);
        if (pathname === '/text') return new Response('héllo');
        if (pathname === '/changed') {
          const response = new Response('{}', { headers: { 'content-type': 'application/json' } });
          response.headers.set('x-late', 'yes');
          return response;
        }
        if (pathname === '/json') return Response.json({ ok: true }, { status: 202 });
        const checks = [
          () => new Response('body', { status: 204 }),
          () => new Response(null, { status: 99 }),
        ].map((make) => {
          try {
            make();
            return 'made';
          } catch (error) {
            return (error as Error).name;
          }
        });
        return new Response(JSON.stringify({ checks, light: new Response('') instanceof Response }));
      }),
    );
    const text = await fetch(`${base}/text`);
    expect(text.headers.get('content-type')).toBe('text/plain;charset=UTF-8');
    expect(text.headers.get('content-length')).toBe(String(Buffer.byteLength('héllo')));
    expect(await text.text()).toBe('héllo');
    const changed = await fetch(`${base}/changed`);
    expect([changed.headers.get('x-late'), changed.headers.get('content-type')]).toEqual([
      'yes',
      'application/json',
    ]);
    const json = await fetch(`${base}/json`);
    expect([json.status, await json.json()]).toEqual([202, { ok: true }]);
    expect(await (await fetch(`${base}/checks`)).json()).toEqual({
      checks: ['TypeError', 'RangeError'],
      light: true,
    });
  });

  it('cancels an event stream and aborts the request signal when the client goes away', async () => {
    let cancelled!: () => void;
    const streamCancelled = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    let signalAborted!: () => void;
    const aborted = new Promise<void>((resolve) => {
      signalAborted = resolve;
    });
    const base = await listen(
      createRequestListener(async (request) => {
        request.signal.addEventListener('abort', () => signalAborted());
        const body = new ReadableStream<Uint8Array>({
          start: (controller) => controller.enqueue(new TextEncoder().encode(': open\n\n')),
          cancel: () => cancelled(),
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      }),
    );
    const controller = new AbortController();
    const response = await fetch(`${base}/events`, { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': open\n\n');
    expect(response.headers.get('content-length')).toBeNull();
    controller.abort();
    await Promise.all([streamCancelled, aborted]);
  });
});

/** Sends `lines` as one raw HTTP/1.1 request (CRLF between them) and resolves with the whole answer. */
function rawRequest(base: string, lines: string[]): Promise<string> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(lines.join('\r\n')));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

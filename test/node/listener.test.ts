import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestListener, type RequestListener } from '../../src/node/index.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
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
});

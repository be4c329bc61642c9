import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type RestServer, startRestServer } from './support.js';

let api: RestServer;
afterEach(async () => {
  await api.close();
});

async function expectProblem(
  response: Response,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const problem = (await response.json()) as Record<string, unknown>;
  expect(problem).toMatchObject({ status, code, type: `/problems/${code}` });
  expect(typeof problem.title).toBe('string');
  expect(typeof problem.detail).toBe('string');
  return problem;
}

describe('errors are RFC 9457 problem documents of one shape', () => {
  it('malformed JSON is a 400', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients', {
      method: 'POST',
      body: '{"name": "Ada",',
      headers: { 'content-type': 'application/json' },
    });
    const problem = await expectProblem(response, 400, 'bad_request');
    expect(problem.errors).toEqual([expect.objectContaining({ field: 'body', code: 'malformed_json' })]);
  });

  it('a wrong content type is a 415', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients', {
      method: 'POST',
      body: 'name=Ada',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await expectProblem(response, 415, 'unsupported_media_type');
  });

  it('merge-patch+json is refused on POST, where only application/json is taken', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    await expectProblem(response, 415, 'unsupported_media_type');
  });

  it('a refused patch format is a 415 naming the accepted ones in Accept-Patch (RFC 5789)', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients/cli_1', {
      method: 'PATCH',
      body: '[{"op":"replace","path":"/name","value":"X"}]',
      headers: { 'content-type': 'application/json-patch+json' },
    });
    await expectProblem(response, 415, 'unsupported_media_type');
    expect(response.headers.get('accept-patch')).toBe('application/merge-patch+json, application/json');
  });

  it('a body over the limit is a 413, even without Content-Length', async () => {
    api = await startRestServer({ limits: { maxBodyBytes: 1024 } });
    const big = JSON.stringify({ name: 'x'.repeat(5000), email: 'a@example.com' });
    await expectProblem(
      await api.call('/api/v1/clients', { method: 'POST', json: JSON.parse(big) }),
      413,
      'payload_too_large',
    );
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const chunked = await api.call('/api/v1/clients', {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await expectProblem(chunked, 413, 'payload_too_large');
  });

  it('an unknown route is a 404', async () => {
    api = await startRestServer();
    await expectProblem(await api.call('/api/v1/customers'), 404, 'not_found');
    await expectProblem(await api.call('/api/v1/clients/a/b/c'), 404, 'not_found');
  });

  it('a trailing slash names the same route, and a repeated query parameter counts by its last value', async () => {
    api = await startRestServer();
    const slashed = await api.call('/api/v1/clients/?limit=1&limit=2');
    expect(slashed.status).toBe(200);
    expect(((await slashed.json()) as { limit: number }).limit).toBe(2);
    await expectProblem(await api.call('/api/v1/clients?limit=1&limit=0'), 400, 'validation_failed');
  });

  it('a wrong method is a 405 with Allow', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients/cli_1', { method: 'POST', json: {} });
    await expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
  });

  it('a validation failure is a 422 with every failing field', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients', {
      method: 'POST',
      json: { name: '', email: 'not-an-email', phone: 'abc' },
    });
    const problem = await expectProblem(response, 422, 'validation_failed');
    expect((problem.errors as { field: string }[]).map((e) => e.field)).toEqual(['name', 'email', 'phone']);
  });

  it('a missing token is a 401 with a Bearer challenge (RFC 6750)', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients', { token: null });
    await expectProblem(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="switchboard"');
  });

  it('a bad token is a 401 with error="invalid_token"', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients', { token: 'expired' });
    await expectProblem(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="switchboard", error="invalid_token"/,
    );
  });

  it('a missing scope is a 403 with error="insufficient_scope" naming it', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients', {
      method: 'POST',
      json: { name: 'A', email: 'a@example.com' },
      token: 'scopes:crm.clients.read',
    });
    await expectProblem(response, 403, 'forbidden');
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="switchboard", error="insufficient_scope", error_description="This needs the scope crm.clients.write.", scope="crm.clients.write"',
    );
    const reading = await api.call('/api/v1/clients', { token: 'scopes:crm.clients.read' });
    expect(reading.status).toBe(200);
  });

  it('checks credentials before reading the body', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients', { method: 'POST', body: 'not json', token: null });
    expect(response.status).toBe(401);
  });
});

describe('a signed-in user sees only their own records', () => {
  it('other clients are 404; their own is served; the list holds only them', async () => {
    api = await startRestServer();
    const ada = await createClient(api, { name: 'Ada', email: 'ada@example.com' });
    const bob = await createClient(api, { name: 'Bob', email: 'bob@example.com' });
    const asAda = { token: `user:${ada.id}` };
    expect((await api.call(`/api/v1/clients/${ada.id}`, asAda)).status).toBe(200);
    await expectProblem(await api.call(`/api/v1/clients/${bob.id}`, asAda), 404, 'not_found');
    await expectProblem(
      await api.call(`/api/v1/clients/${bob.id}`, { ...asAda, method: 'PATCH', json: { name: 'Hacked' } }),
      404,
      'not_found',
    );
    await expectProblem(
      await api.call(`/api/v1/clients/${bob.id}`, { ...asAda, method: 'DELETE' }),
      404,
      'not_found',
    );
    const list = await (await api.call('/api/v1/clients', asAda)).json();
    expect(list).toMatchObject({ total: 1, items: [{ id: ada.id }] });
    expect((await (await api.call(`/api/v1/clients/${bob.id}`)).json()).name).toBe('Bob');
  });

  it('cannot create other clients (403)', async () => {
    api = await startRestServer();
    const ada = await createClient(api, { name: 'Ada', email: 'ada@example.com' });
    const response = await api.call('/api/v1/clients', {
      method: 'POST',
      json: { name: 'X', email: 'x@example.com' },
      token: `user:${ada.id}`,
    });
    await expectProblem(response, 403, 'forbidden');
  });
});

describe('HTTP plumbing', () => {
  it('HEAD answers like GET without a body', async () => {
    api = await startRestServer();
    const client = await createClient(api, { name: 'Ada', email: 'ada@example.com' });
    const response = await api.call(`/api/v1/clients/${client.id}`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"1"');
    expect(await response.text()).toBe('');
  });

  it('OPTIONS lists the methods in Allow and the patch formats in Accept-Patch', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients/cli_1', { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    expect(response.headers.get('accept-patch')).toBe('application/merge-patch+json, application/json');
  });

  it('percent-encoded ids are decoded, and malformed escapes are a 404', async () => {
    api = await startRestServer();
    await expectProblem(await api.call('/api/v1/clients/%E0%A4%A'), 404, 'not_found');
    const response = await api.call('/api/v1/clients/a%2Fb');
    expect((await response.json()).detail).toBe('No client with id "a/b".');
  });
});

describe('CORS', () => {
  it('answers preflights for allowed origins and exposes the headers clients need', async () => {
    api = await startRestServer({ cors: { origins: ['https://chat.example.com'] } });
    const preflight = await api.call('/api/v1/clients', {
      method: 'OPTIONS',
      token: null,
      headers: {
        origin: 'https://chat.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://chat.example.com');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('idempotency-key');
    const actual = await api.call('/api/v1/clients', { headers: { origin: 'https://chat.example.com' } });
    expect(actual.headers.get('access-control-allow-origin')).toBe('https://chat.example.com');
    expect(actual.headers.get('access-control-expose-headers')).toContain('link');
    expect(actual.headers.get('vary')).toContain('Origin');
  });

  it('gives other origins no CORS headers', async () => {
    api = await startRestServer({ cors: { origins: ['https://chat.example.com'] } });
    const response = await api.call('/api/v1/clients', { headers: { origin: 'https://evil.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is off unless configured', async () => {
    api = await startRestServer();
    const response = await api.call('/api/v1/clients', { headers: { origin: 'https://chat.example.com' } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

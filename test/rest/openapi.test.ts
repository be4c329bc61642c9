import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import { type RestServer, startRestServer, testAuthenticate } from './support.js';

let api: RestServer;
beforeAll(async () => {
  api = await startRestServer({
    versions: [
      { basePath: '/api/v1', apiVersion: 1 },
      { basePath: '/api/v2', apiVersion: 2 },
    ],
  });
});
afterAll(async () => {
  await api.close();
});

// biome-ignore lint/suspicious/noExplicitAny: walking an arbitrary JSON document.
type Json = Record<string, any>;

describe('the OpenAPI document', () => {
  for (const base of ['/api/v1', '/api/v2']) {
    it(`${base}/openapi.json is a valid OpenAPI 3.1 document`, async () => {
      const response = await api.call(`${base}/openapi.json`, { token: null });
      expect(response.status).toBe(200);
      expect(response.headers.get('etag')).toBeTruthy();
      const document = await response.json();
      expect(document.openapi).toBe('3.1.0');
      const result = await new Validator().validate(document);
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
    });
  }

  it('stays valid with the admin routes of other modules in it (createSwitchboard)', async () => {
    const switchboard = createSwitchboard({ authenticate: testAuthenticate });
    const document = await (
      await switchboard.fetch(new Request('http://localhost/api/v1/openapi.json'))
    ).json();
    expect(Object.keys(document.paths).length).toBeGreaterThan(10);
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
  });

  it('serves a readable reference page listing every operation', async () => {
    const response = await api.call('/api/v1/docs', { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    const document = await (await api.call('/api/v1/openapi.json', { token: null })).json();
    for (const methods of Object.values<Json>(document.paths)) {
      for (const operation of Object.values<Json>(methods))
        expect(html).toContain(`id="${operation.operationId}"`);
    }
    // One script, the try-it form's, served beside the page: nothing inline.
    expect(html.match(/<script[^>]*>/g)).toEqual([
      expect.stringMatching(/^<script src="\/api\/v1\/docs\/try-\w+\.js" defer>$/),
    ]);
    expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/i);
  });

  it('renders the descriptions’ Markdown on the reference page, and names every column', async () => {
    const html = await (await api.call('/api/v1/docs', { token: null })).text();
    // createClient's description says "Send an `Idempotency-Key` header …".
    expect(html).toContain('<code>Idempotency-Key</code>');
    expect(html).not.toMatch(/`[A-Za-z-]+`/);
    expect(html).toContain(
      '<th scope="col">Parameter (where · required)</th><th scope="col">Description</th>',
    );
    expect(html).toContain('<code>limit</code> <small class="muted">query · optional</small>');
    expect(html).not.toContain('<th></th>');
  });

  it('refuses in the document what the server refuses: an empty patch, an empty Idempotency-Key', async () => {
    const document = await (await api.call('/api/v2/openapi.json', { token: null })).json();
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const schemaOf = (schema: Json) => ajv.compile({ ...schema, components: document.components });
    const patchBody = document.paths['/clients/{id}'].patch.requestBody.content['application/json'].schema;
    expect(schemaOf(patchBody)({})).toBe(false);
    const created = await (
      await api.call('/api/v2/clients', {
        method: 'POST',
        json: { name: 'Empty', email: 'empty@example.com' },
      })
    ).json();
    expect((await api.call(`/api/v2/clients/${created.id}`, { method: 'PATCH', json: {} })).status).toBe(422);
    const key = document.paths['/clients'].post.parameters.find((p: Json) => p.name === 'Idempotency-Key');
    expect(schemaOf(key.schema)('')).toBe(false);
    expect(schemaOf(key.schema)('a-uuid-like-key')).toBe(true);
    const empty = await api.call('/api/v2/clients', {
      method: 'POST',
      json: { name: 'Keyless', email: 'keyless@example.com' },
      headers: { 'idempotency-key': '' },
    });
    expect(empty.status).toBe(400);
  });

  it('documents the 404 of every operation with a path parameter, which can always name nothing', async () => {
    const document = await (await api.call('/api/v2/openapi.json', { token: null })).json();
    for (const [path, methods] of Object.entries<Json>(document.paths)) {
      if (!path.includes('{')) continue;
      for (const [method, operation] of Object.entries<Json>(methods))
        expect(operation.responses['404'], `${method.toUpperCase()} ${path} documents 404`).toBeDefined();
    }
    // An id with a slash in it makes a path nothing is served at: still a documented 404.
    const response = await api.call('/api/v2/clients/a%2Fb/orders');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });

  it('real responses of every route match their documented status, media type and schema', async () => {
    for (const base of ['/api/v1', '/api/v2']) {
      const document = await (await api.call(`${base}/openapi.json`, { token: null })).json();
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      const covered = new Set<string>();
      const check = async (
        method: string,
        template: string,
        path: string,
        init: Json = {},
      ): Promise<Json> => {
        const response = await api.call(`${base}${path}`, { method, ...init });
        const operation = document.paths[template]?.[method.toLowerCase()];
        expect(operation, `${method} ${template} is documented`).toBeDefined();
        const documented = operation.responses[String(response.status)];
        expect(documented, `${method} ${template} → ${response.status} is documented`).toBeDefined();
        covered.add(operation.operationId);
        const text = await response.text();
        if (!documented.content) {
          expect(text).toBe('');
          return {};
        }
        const [mediaType, media] = Object.entries<Json>(documented.content)[0]!;
        expect(response.headers.get('content-type')).toContain(mediaType);
        const body = JSON.parse(text);
        const validate = ajv.compile({ ...media.schema, components: document.components });
        expect(
          validate(body),
          `${method} ${template} ${response.status}: ${ajv.errorsText(validate.errors)}`,
        ).toBe(true);
        return body;
      };
      const v2 = base === '/api/v2';
      const client = await check('POST', '/clients', '/clients', {
        json: { name: 'Doc', email: `doc${base.at(-1)}@example.com`, city: 'Nice' },
      });
      await check('POST', '/clients', '/clients', { json: { name: '' } });
      await check('GET', '/clients', '/clients?city=Nice');
      await check('GET', '/clients', '/clients?limit=0');
      await check('GET', '/clients/{id}', `/clients/${client.id}`);
      await check('GET', '/clients/{id}', '/clients/none');
      await check('GET', '/clients/{id}', `/clients/${client.id}`, { token: null });
      await check('PUT', '/clients/{id}', `/clients/${client.id}`, {
        json: { name: 'Doc', email: client.email, phone: null, city: null },
      });
      await check('PUT', '/clients/{id}', `/clients/${client.id}`, { json: { name: 'Doc' } });
      await check('PATCH', '/clients/{id}', `/clients/${client.id}`, {
        json: { phone: '+33 1 23 45 67 89' },
      });
      await check('PATCH', '/clients/{id}', `/clients/${client.id}`, {
        json: { name: 'X' },
        headers: { 'if-match': '"1"' },
      });
      const total = v2 ? { total: { amount: '5.00', currency: 'EUR' } } : { total: '5.00', currency: 'EUR' };
      const order = await check('POST', '/clients/{id}/orders', `/clients/${client.id}/orders`, {
        json: total,
      });
      await check('POST', '/clients/{id}/orders', '/clients/none/orders', { json: total });
      await check('GET', '/clients/{id}/orders', `/clients/${client.id}/orders`);
      await check('GET', '/users/{user_id}/orders', `/users/${client.id}/orders?status=pending`);
      await check('GET', '/users/{user_id}/orders', '/users/me/orders', { token: `user:${client.id}` });
      await check('GET', '/orders/{id}', `/orders/${order.id}`);
      await check('PATCH', '/orders/{id}', `/orders/${order.id}`, { json: { status: 'paid' } });
      await check('PATCH', '/orders/{id}', `/orders/${order.id}`, { json: { status: 'pending' } });
      const message = await check('POST', '/chatbots/{chatbot_id}/messages', '/chatbots/b1/messages', {
        json: { visitorId: 'v', content: 'hi' },
      });
      await check('GET', '/chatbots/{chatbot_id}/messages', '/chatbots/b1/messages', { token: 'scopes:' });
      await check('GET', '/chatbots/{chatbot_id}/messages', '/chatbots/b1/messages');
      await check('GET', '/messages/{id}', `/messages/${message.id}`);
      // The routes every resource gets from its declaration, on the core records.
      await check('GET', '/orders', '/orders?status=paid');
      await check('POST', '/orders', '/orders', { json: { ...total, clientId: client.id } });
      await check('GET', '/messages', '/messages?chatbotId=b1');
      await check('POST', '/messages', '/messages', {
        json: { chatbotId: 'b2', visitorId: 'v', content: 'hi' },
      });
      const conversation = await check('POST', '/conversations', '/conversations', {
        json: { chatbotId: 'b1', visitorId: 'w', channel: 'web', clientId: client.id },
      });
      await check('GET', '/conversations', '/conversations?status=open');
      await check('GET', '/conversations/{id}', `/conversations/${conversation.id}`);
      await check('PUT', '/conversations/{id}', `/conversations/${conversation.id}`, {
        json: { clientId: client.id, subject: 'Delivery' },
      });
      await check('PATCH', '/conversations/{id}', `/conversations/${conversation.id}`, {
        json: { status: 'waiting_for_agent' },
      });
      await check('GET', '/clients/{id}/conversations', `/clients/${client.id}/conversations`);
      await check('POST', '/clients/{id}/conversations', `/clients/${client.id}/conversations`, {
        json: { chatbotId: 'b1', visitorId: 'x', channel: 'sms' },
      });
      await check('GET', '/users/{user_id}/conversations', '/users/me/conversations', {
        token: `user:${client.id}`,
      });
      await check('DELETE', '/conversations/{id}', `/conversations/${conversation.id}`);
      await check('DELETE', '/clients/{id}', `/clients/${client.id}`);
      await check('DELETE', '/clients/{id}', `/clients/${client.id}`);
      const all = Object.values<Json>(document.paths).flatMap((methods) =>
        Object.values<Json>(methods).map((operation) => operation.operationId),
      );
      expect([...covered].sort()).toEqual(all.sort());
    }
  });
});

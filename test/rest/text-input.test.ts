/**
 * Text and identifiers a caller sends, on memory and on PostgreSQL alike (issue 28, defects 12 and 13):
 * text with NUL or an unpaired surrogate is refused as `invalid_text` naming the field, wherever it
 * enters; an identifier too long or holding NUL to name anything is refused before storage is asked;
 * and well-formed text of every script comes back exactly as it was sent. Neither is ever a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSwitchboard, defineResource, type Switchboard } from '../../src/index.js';
import { WELL_FORMED_TEXTS } from '../../src/storage/testing/text.js';
import { bothStorages } from '../setup/database.js';

const ADMIN = 'sbk_text_input_admin_key_0123456789abcdefghij';
const NUL = 'a\u0000b';
const LONE = '\ud800x';
/** 3,000 random CJK characters, which no index row of PostgreSQL can hold uncompressed. */
const huge = (): string =>
  Array.from({ length: 3000 }, () => String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20000))).join(
    '',
  );

// A host's own record, declared with plain z.string(): the rule reaches it without being asked for.
const notes = defineResource({
  name: 'note',
  idPrefix: 'not',
  fields: { title: z.string(), tags: z.array(z.string()).optional() },
  filters: ['title'],
  scopes: { read: 'crm.notes.read', write: 'crm.notes.write' },
});

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

describe.each(bothStorages())('text and identifiers on %s', (_, makeStorage) => {
  let switchboard: Switchboard;
  let clientId = '';
  let oauthClientId = '';

  const send = async (
    method: string,
    path: string,
    options: { body?: string; type?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { authorization: `Bearer ${ADMIN}`, ...options.headers };
    if (!headers.authorization) delete headers.authorization;
    if (options.body !== undefined) headers['content-type'] = options.type ?? 'application/json';
    const response = await switchboard.fetch(
      new Request(`http://localhost${path}`, { method, headers, body: options.body }),
    );
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  // JSON.stringify writes a lone surrogate and NUL as \u escapes: the body is well-formed UTF-8 JSON.
  const json = (method: string, path: string, value: unknown, headers?: Record<string, string>) =>
    send(method, path, { body: JSON.stringify(value), headers: headers ?? {} });
  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const { body } = await json('POST', '/graphql', { query, variables });
    return (
      body.errors as { extensions: { code: string; details: { field: string; code: string }[] } }[]
    )?.[0];
  };
  const token = (body: string, headers: Record<string, string> = {}) =>
    send('POST', '/oauth/token', {
      body,
      type: 'application/x-www-form-urlencoded',
      headers: { authorization: '', ...headers },
    });

  beforeAll(async () => {
    switchboard = createSwitchboard({
      storage: await makeStorage(),
      resources: [notes],
      oauth: { adminApiKey: ADMIN },
    });
    await switchboard.oauth!.ready;
    // Ready once the storage made the indexes of the lists (PostgreSQL: one per filtered field).
    expect((await switchboard.fetch(new Request('http://localhost/readyz'))).status).toBe(200);
    const client = await json('POST', '/api/v1/clients', { name: 'Ada', email: 'ada@example.com' });
    clientId = client.body.id as string;
    const registered = await json('POST', '/oauth/clients', {
      name: 'Support bot',
      type: 'confidential',
      scopes: ['crm.clients.read'],
      grantTypes: ['client_credentials'],
    });
    oauthClientId = registered.body.id as string;
  });
  afterAll(() => switchboard?.close());

  /** A 422 (or the status given) `validation_failed` whose details name `field` as `invalid_text`. */
  const expectInvalidText = (answer: Answer, field: string, status = 422) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.errors).toContainEqual(expect.objectContaining({ field, code: 'invalid_text' }));
  };

  describe.each([
    ['NUL', NUL],
    ['an unpaired surrogate', LONE],
  ])('text with %s is refused as invalid_text naming the field', (_, bad) => {
    it('in a created client (REST)', async () => {
      expectInvalidText(await json('POST', '/api/v1/clients', { name: bad, email: 'x@example.com' }), 'name');
    });

    it('in a patched and a replaced client (REST)', async () => {
      expectInvalidText(await json('PATCH', `/api/v1/clients/${clientId}`, { city: bad }), 'city');
      expectInvalidText(
        await json('PUT', `/api/v1/clients/${clientId}`, {
          name: 'Ada',
          email: 'ada@example.com',
          phone: null,
          city: bad,
        }),
        'city',
      );
    });

    it('in a message (REST)', async () => {
      const message = { chatbotId: 'bot_1', visitorId: 'v_1', content: `Hello ${bad}` };
      expectInvalidText(await json('POST', '/api/v1/messages', message), 'content');
    });

    it('in every string field of a host-declared resource (plain z.string())', async () => {
      expectInvalidText(await json('POST', '/api/v1/notes', { title: bad }), 'title');
      expectInvalidText(await json('POST', '/api/v1/notes', { title: 'fine', tags: ['ok', bad] }), 'tags.1');
    });

    it('in an API key name, an OAuth client name and a webhook endpoint description', async () => {
      expectInvalidText(await json('POST', '/oauth/api-keys', { name: bad, scopes: [] }), 'name');
      const app = { name: bad, type: 'public', redirectUris: ['https://app.example.com/cb'] };
      expectInvalidText(
        await json('POST', '/oauth/clients', { ...app, scopes: ['crm.clients.read'] }),
        'name',
      );
      expectInvalidText(await json('PATCH', `/oauth/clients/${oauthClientId}`, { name: bad }), 'name');
      const endpoint = { url: 'https://hooks.example.com/crm', description: bad, eventTypes: ['*'] };
      expectInvalidText(await json('POST', '/api/v1/webhook-endpoints', endpoint), 'description');
    });

    it('in GraphQL arguments: a mutation input and a list filter', async () => {
      const created = await graphql(
        'mutation ($input: CreateClientInput!) { createClient(input: $input) { id } }',
        { input: { name: bad, email: 'g@example.com' } },
      );
      expect(created?.extensions.code).toBe('validation_failed');
      expect(created?.extensions.details).toContainEqual({
        field: 'input.name',
        code: 'invalid_text',
        message: expect.any(String),
      });
      const listed = await graphql('query ($name: String) { clients(name: $name) { id } }', { name: bad });
      expect(listed?.extensions.code).toBe('validation_failed');
      expect(listed?.extensions.details[0]).toMatchObject({ field: 'name', code: 'invalid_text' });
    });
  });

  // A URL carries no lone surrogate (its escapes decode to U+FFFD): NUL is what a query can hold.
  it.each([
    ['/api/v1/clients?name=%00', 'name'],
    ['/api/v1/clients?email=a%00', 'email'],
    ['/api/v1/clients?city=%00', 'city'],
    ['/api/v1/messages?visitorId=%00', 'visitorId'],
    ['/api/v1/notes?title=%00', 'title'],
  ])('refuses NUL in the list filter %s as a bad query parameter (400)', async (path, field) => {
    expectInvalidText(await send('GET', path), field, 400);
  });

  it('stores and returns well-formed text of every script exactly, and finds it by filter', async () => {
    for (const [i, title] of WELL_FORMED_TEXTS.entries()) {
      const created = await json('POST', '/api/v1/notes', { title, tags: [title] });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ title, tags: [title] });
      const read = await send('GET', `/api/v1/notes/${created.body.id}`);
      expect(read.body).toMatchObject({ title, tags: [title] });
      const found = await send('GET', `/api/v1/notes?title=${encodeURIComponent(title)}`);
      expect(
        (found.body.items as { id: string }[]).map((n) => n.id),
        `text ${i}`,
      ).toEqual([created.body.id]);
    }
    const name = WELL_FORMED_TEXTS[0]!;
    const client = await json('POST', '/api/v1/clients', { name, email: 'emoji@example.com' });
    expect(client.body.name).toBe(name);
  });

  it('holds a text field lists find records by to 500 characters: longer is too_long (422), 500 are kept', async () => {
    const refused = await json('POST', '/api/v1/notes', { title: huge() });
    expect(refused.status, String(refused.body.code)).toBe(422);
    expect(refused.body.errors).toEqual([
      { field: 'title', code: 'too_long', message: 'title must be at most 500 characters.' },
    ]);
    const title = huge().slice(0, 500);
    const kept = await json('POST', '/api/v1/notes', { title });
    expect(kept.status, String(kept.body.code)).toBe(201);
    const found = await send('GET', `/api/v1/notes?title=${encodeURIComponent(title)}`);
    expect((found.body.items as { id: string }[]).map((n) => n.id)).toEqual([kept.body.id]);
    const openapi = await send('GET', '/api/v1/openapi.json');
    expect(JSON.stringify(openapi.body)).toContain('"maxLength":500');
  });

  describe('identifiers that cannot name anything are refused before storage is asked', () => {
    it.each([
      ['an id of 201 characters', 'GET', () => `/api/v1/clients/cli_${'x'.repeat(197)}`],
      ['an id holding NUL', 'PATCH', () => '/api/v1/clients/cli%00x'],
      [
        'a webhook endpoint id of 3,000 characters',
        'GET',
        () => `/api/v1/webhook-endpoints/${encodeURIComponent(huge())}`,
      ],
      ['an API key id holding NUL', 'DELETE', () => '/oauth/api-keys/key%00'],
      ['an OAuth client id of 3,000 characters', 'GET', () => `/oauth/clients/${encodeURIComponent(huge())}`],
      ['a grant id of 3,000 characters', 'DELETE', () => `/oauth/grants/${encodeURIComponent(huge())}`],
    ])('a REST path with %s is a 404', async (_, method, path) => {
      const answer = await (method === 'PATCH'
        ? json(method, path(), { city: 'Paris' })
        : send(method, path()));
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('not_found');
    });

    it('a POST under an over-long id with an Idempotency-Key is a 404, not a key too large to store', async () => {
      const order = await json(
        'POST',
        `/api/v1/clients/${encodeURIComponent(huge())}/orders`,
        { total: '1.00', currency: 'EUR' },
        { 'idempotency-key': 'order-1' },
      );
      expect(order.status).toBe(404);
      const test = await json(
        'POST',
        `/api/v1/webhook-endpoints/${encodeURIComponent(huge())}/test-events`,
        {},
        { 'idempotency-key': 'test-1' },
      );
      expect(test.status).toBe(404);
    });

    it('a GraphQL ID argument over 200 characters or holding NUL is validation_failed naming it', async () => {
      const query = 'query ($id: ID!) { client(id: $id) { id } }';
      expect((await graphql(query, { id: 'c'.repeat(201) }))?.extensions.details[0]).toMatchObject({
        field: 'id',
        code: 'too_long',
      });
      expect((await graphql(query, { id: NUL }))?.extensions.details[0]).toMatchObject({
        field: 'id',
        code: 'invalid_text',
      });
      const webhook = await graphql('query ($id: ID!) { webhookEndpoint(id: $id) { id } }', { id: huge() });
      expect(webhook?.extensions.code).toBe('validation_failed');
    });

    it('the token endpoint answers a client_id of 9,000 characters with invalid_client (401)', async () => {
      const answer = await token(`grant_type=client_credentials&client_id=${'c'.repeat(9000)}`);
      expect(answer).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      expect(answer.body.error_description).toContain('200 characters');
    });

    it('the token endpoint answers a client_id holding NUL with invalid_request (400)', async () => {
      const answer = await token('grant_type=client_credentials&client_id=a%00b&client_secret=x');
      expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      expect(answer.body.error_description).toContain('client_id');
    });

    it('the token endpoint answers HTTP Basic with an 11,000-character or NUL client_id with invalid_client', async () => {
      for (const id of ['d'.repeat(11_000), 'oac%00x', encodeURIComponent(huge())]) {
        const answer = await token('grant_type=client_credentials', {
          authorization: `Basic ${btoa(`${id}:secret`)}`,
        });
        expect(answer).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      }
    });

    it('an X-Forwarded-For hop of 9,000 characters names no address: the budget is the peer’s, never a 500', async () => {
      const behindProxies = createSwitchboard({
        storage: await makeStorage(),
        rateLimits: { trustedProxies: 2 },
      });
      try {
        const hop = Array.from({ length: 9000 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
        const answer = await behindProxies.fetch(
          new Request('http://localhost/api/v1/clients', {
            headers: { 'x-forwarded-for': `${hop}, 203.0.113.7` },
          }),
        );
        expect(answer.status).toBe(401);
        expect(answer.headers.get('ratelimit')).toMatch(/^"read"/);
      } finally {
        await behindProxies.close();
      }
    });

    it('the authorization page treats a client_id holding NUL or of 3,000 characters as an unknown app', async () => {
      for (const id of ['a%00', encodeURIComponent(huge())]) {
        const page = await switchboard.fetch(
          new Request(`http://localhost/oauth/authorize?response_type=code&client_id=${id}`),
        );
        expect(page.status).toBe(400);
      }
    });
  });
});

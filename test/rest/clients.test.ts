import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { createClient, type RestServer, startRestServer } from './support.js';

let api: RestServer;
beforeEach(async () => {
  api = await startRestServer();
});
afterEach(async () => {
  await api.close();
});

const ada = { name: 'Ada Lovelace', email: 'ada@example.com', city: 'London' };

describe('POST /api/v1/clients', () => {
  it('creates a client: 201, the assigned id, and Location naming the new URL', async () => {
    const response = await api.call('/api/v1/clients', { method: 'POST', json: ada });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toMatchObject({ id: 'cli_1', name: 'Ada Lovelace', email: 'ada@example.com', phone: null });
    expect(response.headers.get('location')).toBe('/api/v1/clients/cli_1');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('etag')).toBe('"1"');
    const followed = await api.call(response.headers.get('location')!);
    expect(await followed.json()).toEqual(body);
  });

  it('is not idempotent: two identical POSTs create two clients', async () => {
    const bob = { name: 'Bob', email: 'bob@example.com' };
    const first = await api.call('/api/v1/clients', { method: 'POST', json: bob });
    const second = await api.call('/api/v1/clients', {
      method: 'POST',
      json: { ...bob, email: 'bob2@example.com' },
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    const list = await (await api.call('/api/v1/clients')).json();
    expect(list.total).toBe(2);
  });

  it('answers 409 naming the field when the e-mail is already used', async () => {
    await createClient(api, ada);
    const response = await api.call('/api/v1/clients', {
      method: 'POST',
      json: { ...ada, email: 'ADA@example.com' },
    });
    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const problem = await response.json();
    expect(problem).toMatchObject({ status: 409, code: 'conflict', title: 'Conflict' });
    expect(problem.errors).toEqual([expect.objectContaining({ field: 'email', code: 'already_exists' })]);
  });

  it('answers 422 listing every failing field', async () => {
    const response = await api.call('/api/v1/clients', { method: 'POST', json: { email: 'nope', extra: 1 } });
    expect(response.status).toBe(422);
    const problem = await response.json();
    expect(problem.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'extra', 'name']);
  });

  it('with an Idempotency-Key, a retried POST returns the first result and creates nothing new', async () => {
    const headers = { 'idempotency-key': 'retry-1' };
    const first = await api.call('/api/v1/clients', { method: 'POST', json: ada, headers });
    const retry = await api.call('/api/v1/clients', { method: 'POST', json: ada, headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(await retry.json()).toEqual(await first.json());
    expect((await (await api.call('/api/v1/clients')).json()).total).toBe(1);
    expect((await api.events()).filter((e) => e.type === 'client.created')).toHaveLength(1);
  });

  it('replays the answer of a POST whose process died right after committing (answer stored with the record)', async () => {
    // Storage where a write outside a transaction never lands: as if the process died between the
    // transaction that created the client and anything written after it.
    const base = createMemoryStorage();
    const dying: Storage = {
      ...base,
      idempotency: {
        ...base.idempotency,
        complete: () => Promise.reject(new Error('the process died')),
      },
    };
    await api.close();
    api = await startRestServer({}, dying);
    const headers = { 'idempotency-key': 'crash-1' };
    const first = await api.call('/api/v1/clients', { method: 'POST', json: ada, headers });
    expect(first.status).toBe(201);
    api.clock.advance(60_000); // past any lease
    const retry = await api.call('/api/v1/clients', { method: 'POST', json: ada, headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect((await (await api.call('/api/v1/clients')).json()).total).toBe(1);
  });

  it('answers 409 with Retry-After while the first request holds the key, and runs a retry once its lease lapsed', async () => {
    const key = 'rest:admin:/api/v1/clients:in-flight';
    // A request that claimed the key and never finished (its process died before committing anything).
    await api.storage.idempotency.claim(key, { now: api.clock.now(), lockMs: 15_000 });
    const headers = { 'idempotency-key': 'in-flight' };
    const busy = await api.call('/api/v1/clients', { method: 'POST', json: ada, headers });
    expect(busy.status).toBe(409);
    expect(busy.headers.get('retry-after')).toBe('15');
    api.clock.advance(15_000);
    const retry = await api.call('/api/v1/clients', { method: 'POST', json: ada, headers });
    expect(retry.status).toBe(201);
  });

  it('refuses a reused Idempotency-Key with a different body (422)', async () => {
    const headers = { 'idempotency-key': 'retry-2' };
    await api.call('/api/v1/clients', { method: 'POST', json: ada, headers });
    const response = await api.call('/api/v1/clients', {
      method: 'POST',
      json: { ...ada, name: 'Someone else' },
      headers,
    });
    expect(response.status).toBe(422);
    expect((await response.json()).errors[0]).toMatchObject({ field: 'Idempotency-Key', code: 'key_reused' });
  });

  it('keeps Idempotency-Keys apart per caller', async () => {
    const headers = { 'idempotency-key': 'shared' };
    await api.call('/api/v1/clients', { method: 'POST', json: ada, headers });
    const other = await api.call('/api/v1/clients', {
      method: 'POST',
      json: { name: 'Other', email: 'other@example.com' },
      headers,
      token: 'scopes:crm.clients.write',
    });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });

  it('frees the key after a failed attempt so a corrected retry can use it', async () => {
    const headers = { 'idempotency-key': 'fix-me' };
    const bad = await api.call('/api/v1/clients', { method: 'POST', json: { ...ada, email: 'x' }, headers });
    expect(bad.status).toBe(422);
    await createClient(api, { name: 'Taken', email: 'taken@example.com' });
    const conflict = await api.call('/api/v1/clients', {
      method: 'POST',
      json: { name: 'A', email: 'taken@example.com' },
      headers: { 'idempotency-key': 'fix-2' },
    });
    expect(conflict.status).toBe(409);
    const fixed = await api.call('/api/v1/clients', {
      method: 'POST',
      json: ada,
      headers: { 'idempotency-key': 'fix-2' },
    });
    expect(fixed.status).toBe(201);
  });
});

describe('GET /api/v1/clients', () => {
  beforeEach(async () => {
    for (let i = 1; i <= 5; i++) {
      await createClient(api, {
        name: `Person ${i}`,
        email: `p${i}@example.com`,
        city: i % 2 ? 'Paris' : 'Lyon',
      });
    }
  });

  it('pages with page and limit, the total, and a Link header with first/prev/next/last', async () => {
    const response = await api.call('/api/v1/clients?page=2&limit=2');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ page: 2, limit: 2, total: 5 });
    expect(body.items.map((c: { name: string }) => c.name)).toEqual(['Person 3', 'Person 4']);
    expect(response.headers.get('link')).toBe(
      [
        '</api/v1/clients?page=1&limit=2>; rel="first"',
        '</api/v1/clients?page=1&limit=2>; rel="prev"',
        '</api/v1/clients?page=3&limit=2>; rel="next"',
        '</api/v1/clients?page=3&limit=2>; rel="last"',
      ].join(', '),
    );
  });

  it('defaults to page 1 of 20 and keeps filters in the links', async () => {
    const response = await api.call('/api/v1/clients?city=Paris');
    const body = await response.json();
    expect(body).toMatchObject({ page: 1, limit: 20, total: 3 });
    expect(response.headers.get('link')).toBe(
      '</api/v1/clients?city=Paris&page=1&limit=20>; rel="first", </api/v1/clients?city=Paris&page=1&limit=20>; rel="last"',
    );
  });

  it('filters by e-mail (exact, case-insensitive) and name (contains)', async () => {
    const byEmail = await (await api.call('/api/v1/clients?email=P4@Example.com')).json();
    expect(byEmail.items.map((c: { name: string }) => c.name)).toEqual(['Person 4']);
    const byName = await (await api.call('/api/v1/clients?name=son%205')).json();
    expect(byName.items.map((c: { name: string }) => c.name)).toEqual(['Person 5']);
  });

  it('refuses a limit above the maximum of 100 with a 400 naming it', async () => {
    const response = await api.call('/api/v1/clients?limit=101&page=0');
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'page']);
  });

  it('carries ETag and Cache-Control, and answers 304 to If-None-Match', async () => {
    const first = await api.call('/api/v1/clients');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const again = await api.call('/api/v1/clients', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    await createClient(api, { name: 'New', email: 'new@example.com' });
    const changed = await api.call('/api/v1/clients', { headers: { 'if-none-match': etag! } });
    expect(changed.status).toBe(200);
  });
});

describe('GET /api/v1/clients/{id}', () => {
  it('answers the client with its version as ETag, and 304 when unchanged', async () => {
    const client = await createClient(api, ada);
    const response = await api.call(`/api/v1/clients/${client.id}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(client);
    expect(response.headers.get('etag')).toBe('"1"');
    const cached = await api.call(`/api/v1/clients/${client.id}`, { headers: { 'if-none-match': '"1"' } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe('"1"');
  });

  it('answers 404 problem+json when absent', async () => {
    const response = await api.call('/api/v1/clients/cli_404');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      status: 404,
      code: 'not_found',
      detail: 'No client with id "cli_404".',
    });
  });
});

describe('PUT /api/v1/clients/{id}', () => {
  it('replaces every field', async () => {
    const client = await createClient(api, { ...ada, phone: '+44 20 7946 0000' });
    const response = await api.call(`/api/v1/clients/${client.id}`, {
      method: 'PUT',
      json: { name: 'Ada King', email: 'ada@example.com', phone: null, city: null },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: 'Ada King', phone: null, city: null, version: 2 });
    expect(response.headers.get('etag')).toBe('"2"');
  });

  it('answers 422 naming each missing field', async () => {
    const client = await createClient(api, ada);
    const response = await api.call(`/api/v1/clients/${client.id}`, { method: 'PUT', json: { name: 'Ada' } });
    expect(response.status).toBe(422);
    const problem = await response.json();
    expect(problem.errors).toEqual(
      ['email', 'phone', 'city'].map((field) => expect.objectContaining({ field, code: 'required' })),
    );
  });

  it('with a stale If-Match answers 412 and changes nothing; with the current one it succeeds', async () => {
    const client = await createClient(api, ada);
    const replacement = { name: 'Ada B', email: 'ada@example.com', phone: null, city: 'Paris' };
    const ok = await api.call(`/api/v1/clients/${client.id}`, {
      method: 'PUT',
      json: replacement,
      headers: { 'if-match': '"1"' },
    });
    expect(ok.status).toBe(200);
    const stale = await api.call(`/api/v1/clients/${client.id}`, {
      method: 'PUT',
      json: { ...replacement, name: 'Lost update' },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.status).toBe(412);
    expect((await stale.json()).code).toBe('precondition_failed');
    expect((await (await api.call(`/api/v1/clients/${client.id}`)).json()).name).toBe('Ada B');
  });

  it('answers 404 for an absent client', async () => {
    const response = await api.call('/api/v1/clients/cli_9', {
      method: 'PUT',
      json: { name: 'X', email: 'x@example.com', phone: null, city: null },
    });
    expect(response.status).toBe(404);
  });
});

describe('PATCH /api/v1/clients/{id}', () => {
  it('changes only the fields sent (application/merge-patch+json)', async () => {
    const client = await createClient(api, ada);
    const response = await api.call(`/api/v1/clients/${client.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ phone: '+33 6 12 34 56 78' }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      name: ada.name,
      city: 'London',
      phone: '+33 6 12 34 56 78',
    });
  });

  it('accepts application/json, and null clears an optional field', async () => {
    const client = await createClient(api, ada);
    const response = await api.call(`/api/v1/clients/${client.id}`, {
      method: 'PATCH',
      json: { city: null },
    });
    expect(await response.json()).toMatchObject({ city: null, name: ada.name });
  });

  it('answers 412 when If-Match is stale', async () => {
    const client = await createClient(api, ada);
    const response = await api.call(`/api/v1/clients/${client.id}`, {
      method: 'PATCH',
      json: { name: 'X' },
      headers: { 'if-match': '"7"' },
    });
    expect(response.status).toBe(412);
  });

  it('publishes client.updated', async () => {
    const client = await createClient(api, ada);
    await api.call(`/api/v1/clients/${client.id}`, { method: 'PATCH', json: { name: 'Countess' } });
    const events = await api.events();
    expect(events.map((e) => e.type)).toEqual(['client.created', 'client.updated']);
    expect(events[1]!.data).toMatchObject({ id: client.id, name: 'Countess' });
  });
});

describe('DELETE /api/v1/clients/{id}', () => {
  it('answers 204 with no body; deleting again is 404; the event is published once', async () => {
    const client = await createClient(api, ada);
    const response = await api.call(`/api/v1/clients/${client.id}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('content-type')).toBeNull();
    const again = await api.call(`/api/v1/clients/${client.id}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect((await api.call(`/api/v1/clients/${client.id}`)).status).toBe(404);
    expect((await api.events()).filter((e) => e.type === 'client.deleted')).toHaveLength(1);
  });

  it('honours If-Match', async () => {
    const client = await createClient(api, ada);
    const stale = await api.call(`/api/v1/clients/${client.id}`, {
      method: 'DELETE',
      headers: { 'if-match': '"2"' },
    });
    expect(stale.status).toBe(412);
    const ok = await api.call(`/api/v1/clients/${client.id}`, {
      method: 'DELETE',
      headers: { 'if-match': '"1"' },
    });
    expect(ok.status).toBe(204);
  });
});

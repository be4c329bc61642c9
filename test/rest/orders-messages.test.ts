import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, type RestServer, startRestServer } from './support.js';

let api: RestServer;
let ada: { id: string };
let bob: { id: string };
beforeEach(async () => {
  api = await startRestServer();
  ada = await createClient(api, { name: 'Ada', email: 'ada@example.com' });
  bob = await createClient(api, { name: 'Bob', email: 'bob@example.com' });
});
afterEach(async () => {
  await api.close();
});

async function order(clientId: string, total = '10.00'): Promise<Record<string, unknown> & { id: string }> {
  const response = await api.call(`/api/v1/clients/${clientId}/orders`, {
    method: 'POST',
    json: { total, currency: 'EUR' },
  });
  expect(response.status).toBe(201);
  return response.json();
}

describe('orders', () => {
  it('POST /clients/{id}/orders creates a pending order with Location; 404 for an absent client', async () => {
    const response = await api.call(`/api/v1/clients/${ada.id}/orders`, {
      method: 'POST',
      json: { total: '129.90', currency: 'EUR' },
    });
    expect(response.status).toBe(201);
    const created = await response.json();
    expect(created).toMatchObject({ clientId: ada.id, status: 'pending', total: '129.90', currency: 'EUR' });
    expect(response.headers.get('location')).toBe(`/api/v1/orders/${created.id}`);
    const absent = await api.call('/api/v1/clients/cli_none/orders', {
      method: 'POST',
      json: { total: '1', currency: 'EUR' },
    });
    expect(absent.status).toBe(404);
  });

  it('GET /clients/{id}/orders pages and filters by status', async () => {
    const first = await order(ada.id);
    await order(ada.id);
    await order(bob.id);
    await api.call(`/api/v1/orders/${first.id}`, { method: 'PATCH', json: { status: 'paid' } });
    const all = await api.call(`/api/v1/clients/${ada.id}/orders?limit=1`);
    const body = await all.json();
    expect(body).toMatchObject({ total: 2, page: 1, limit: 1 });
    expect(all.headers.get('link')).toContain('rel="next"');
    const paid = await (await api.call(`/api/v1/clients/${ada.id}/orders?status=paid`)).json();
    expect(paid.items.map((o: { id: string }) => o.id)).toEqual([first.id]);
    const bad = await api.call(`/api/v1/clients/${ada.id}/orders?status=lost`);
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0]).toMatchObject({ field: 'status', code: 'invalid_value' });
  });

  it('GET /users/{user_id}/orders lists a user’s orders; /users/me/orders resolves to the signed-in user', async () => {
    const own = await order(ada.id);
    await order(bob.id);
    const byId = await (await api.call(`/api/v1/users/${ada.id}/orders`)).json();
    expect(byId.items.map((o: { id: string }) => o.id)).toEqual([own.id]);
    const me = await (await api.call('/api/v1/users/me/orders', { token: `user:${ada.id}` })).json();
    expect(me.items.map((o: { id: string }) => o.id)).toEqual([own.id]);
  });

  it('/users/me/orders is a 404 for a caller that is not a user; other users are 404 to a user', async () => {
    expect((await api.call('/api/v1/users/me/orders')).status).toBe(404);
    expect((await api.call(`/api/v1/users/${bob.id}/orders`, { token: `user:${ada.id}` })).status).toBe(404);
    expect((await api.call('/api/v1/users/nobody/orders')).status).toBe(404);
  });

  it('GET /orders/{id} answers the order with an ETag; another user’s order is 404', async () => {
    const created = await order(bob.id);
    const response = await api.call(`/api/v1/orders/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"1"');
    expect(await response.json()).toEqual(created);
    expect((await api.call(`/api/v1/orders/${created.id}`, { token: `user:${ada.id}` })).status).toBe(404);
    expect((await api.call('/api/v1/orders/ord_none')).status).toBe(404);
  });

  it('PATCH /orders/{id} changes the status along the life cycle and publishes order.<status>', async () => {
    const created = await order(ada.id);
    const paid = await api.call(`/api/v1/orders/${created.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'paid' }),
      headers: { 'content-type': 'application/merge-patch+json', 'if-match': '"1"' },
    });
    expect(paid.status).toBe(200);
    expect(await paid.json()).toMatchObject({ status: 'paid', version: 2 });
    const back = await api.call(`/api/v1/orders/${created.id}`, {
      method: 'PATCH',
      json: { status: 'pending' },
    });
    expect(back.status).toBe(409);
    expect((await back.json()).errors[0]).toMatchObject({ field: 'status', code: 'invalid_transition' });
    const stale = await api.call(`/api/v1/orders/${created.id}`, {
      method: 'PATCH',
      json: { status: 'shipped' },
      headers: { 'if-match': '"1"' },
    });
    expect(stale.status).toBe(412);
    const events = await api.events();
    expect(events.map((e) => e.type)).toEqual([
      'client.created',
      'client.created',
      'order.created',
      'order.paid',
    ]);
    expect(events[3]!.data).toMatchObject({ id: created.id, customerEmail: 'ada@example.com' });
  });
});

describe('messages', () => {
  it('POST /chatbots/{id}/messages records a message; GET lists the conversation oldest first', async () => {
    const sent = await api.call('/api/v1/chatbots/bot-1/messages', {
      method: 'POST',
      json: { visitorId: 'v1', content: 'Hello' },
    });
    expect(sent.status).toBe(201);
    const message = await sent.json();
    expect(message).toMatchObject({ chatbotId: 'bot-1', visitorId: 'v1', content: 'Hello' });
    expect(sent.headers.get('location')).toBe(`/api/v1/messages/${message.id}`);
    await api.call('/api/v1/chatbots/bot-1/messages', {
      method: 'POST',
      json: { visitorId: 'v2', content: 'Hi' },
    });
    await api.call('/api/v1/chatbots/bot-2/messages', {
      method: 'POST',
      json: { visitorId: 'v1', content: 'Other bot' },
    });
    const conversation = await (await api.call('/api/v1/chatbots/bot-1/messages?visitorId=v1')).json();
    expect(conversation).toMatchObject({ total: 1, items: [{ content: 'Hello' }] });
    const all = await (await api.call('/api/v1/chatbots/bot-1/messages')).json();
    expect(all.items.map((m: { content: string }) => m.content)).toEqual(['Hello', 'Hi']);
    const one = await api.call(`/api/v1/messages/${message.id}`);
    expect(await one.json()).toEqual(message);
    expect(one.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    expect((await api.events()).filter((e) => e.type === 'message.created')).toHaveLength(3);
  });

  it('needs the chat scopes', async () => {
    const response = await api.call('/api/v1/chatbots/bot-1/messages', { token: 'scopes:crm.clients.read' });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('scope="chat.messages.read"');
  });
});

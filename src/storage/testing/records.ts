import { expect, it } from 'vitest';
import type { Storage } from '../../core/storage/index.js';
import { aClient, aMessage, anOrder } from './fixtures.js';

export function clientContract(storage: () => Storage): void {
  it('stores a client and reads it back unchanged', async () => {
    const client = aClient({ phone: '+33 6 12 34 56 78', city: 'Lyon' });
    await storage().clients.insert(client);
    expect(await storage().clients.get(client.id)).toEqual(client);
  });

  it('answers null for a client that does not exist', async () => {
    expect(await storage().clients.get('cli_missing')).toBeNull();
  });

  it('refuses a second client with the same e-mail as a conflict', async () => {
    const first = aClient();
    await storage().clients.insert(first);
    await expect(storage().clients.insert(aClient({ email: first.email }))).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('lists clients in creation order (not insertion order) with the total, a range and filters', async () => {
    const s = storage();
    const lyon = [
      aClient({ city: 'Lyon', name: 'Ada Lovelace' }),
      aClient({ city: 'Lyon', name: 'Alan Turing' }),
    ];
    const paris = aClient({ city: 'Paris', name: 'Grace Hopper' });
    for (const c of [lyon[0]!, paris, lyon[1]!]) await s.clients.insert(c);

    const all = await s.clients.list({}, { offset: 0, limit: 10 });
    expect(all.total).toBe(3);
    expect(all.items).toEqual([...lyon, paris]);

    const second = await s.clients.list({}, { offset: 1, limit: 1 });
    expect(second).toEqual({ items: [lyon[1]], total: 3 });

    expect((await s.clients.list({ city: 'Lyon' }, { offset: 0, limit: 10 })).items).toEqual(lyon);
    expect((await s.clients.list({ email: paris.email }, { offset: 0, limit: 10 })).items).toEqual([paris]);
    const byName = await s.clients.list({ nameContains: 'TURING' }, { offset: 0, limit: 10 });
    expect(byName).toEqual({ items: [lyon[1]], total: 1 });
    expect(await s.clients.list({ city: 'Oslo' }, { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
  });

  it('updates only at the expected version (compare-and-set)', async () => {
    const s = storage();
    const client = aClient();
    await s.clients.insert(client);
    const renamed = { ...client, name: 'Renamed', version: 2 };
    expect(await s.clients.update(renamed, 1)).toBe(true);
    expect(await s.clients.update({ ...client, name: 'Stale', version: 2 }, 1)).toBe(false);
    expect(await s.clients.get(client.id)).toEqual(renamed);
    expect(await s.clients.update(aClient(), 1)).toBe(false);
  });

  it('keeps e-mails unique across updates and frees the old one', async () => {
    const s = storage();
    const a = aClient();
    const b = aClient();
    await s.clients.insert(a);
    await s.clients.insert(b);
    await expect(s.clients.update({ ...b, email: a.email, version: 2 }, 1)).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(await s.clients.update({ ...a, email: 'new@example.com', version: 2 }, 1)).toBe(true);
    await s.clients.insert(aClient({ email: a.email }));
    expect((await s.clients.list({ email: a.email }, { offset: 0, limit: 5 })).total).toBe(1);
  });

  it('deletes once, honours the expected version, and frees the e-mail', async () => {
    const s = storage();
    const client = aClient();
    await s.clients.insert(client);
    expect(await s.clients.delete(client.id, 7)).toBe(false);
    expect(await s.clients.delete(client.id, 1)).toBe(true);
    expect(await s.clients.get(client.id)).toBeNull();
    expect(await s.clients.delete(client.id)).toBe(false);
    await s.clients.insert(aClient({ email: client.email }));
  });
}

export function orderContract(storage: () => Storage): void {
  it('lists the orders of a client by status with a range and total', async () => {
    const s = storage();
    const client = aClient();
    await s.clients.insert(client);
    const orders = [
      anOrder(client.id),
      anOrder(client.id, { status: 'paid' }),
      anOrder(client.id),
      anOrder(aClient().id),
    ];
    for (const o of orders) await s.orders.insert(o);
    expect(await s.orders.get(orders[1]!.id)).toEqual(orders[1]);
    expect(await s.orders.get('ord_missing')).toBeNull();
    const all = await s.orders.listByClient(client.id, {}, { offset: 0, limit: 10 });
    expect(all).toEqual({ items: orders.slice(0, 3), total: 3 });
    const pending = await s.orders.listByClient(client.id, { status: 'pending' }, { offset: 1, limit: 10 });
    expect(pending).toEqual({ items: [orders[2]], total: 2 });
  });

  it('loads the orders of many clients in one call', async () => {
    const s = storage();
    const [a, b, c] = [aClient(), aClient(), aClient()];
    const orders = [anOrder(a.id), anOrder(b.id), anOrder(a.id), anOrder(c.id)];
    for (const o of orders) await s.orders.insert(o);
    const found = await s.orders.listByClients([a.id, b.id, 'cli_none'], {});
    expect(found).toEqual([orders[0], orders[1], orders[2]]);
    expect(await s.orders.listByClients([a.id], { status: 'paid' })).toEqual([]);
    expect(await s.orders.listByClients([], {})).toEqual([]);
  });

  it('updates orders by compare-and-set and deletes all orders of a client', async () => {
    const s = storage();
    const client = aClient();
    const order = anOrder(client.id);
    await s.orders.insert(order);
    await s.orders.insert(anOrder(client.id));
    const paid = { ...order, status: 'paid' as const, version: 2 };
    expect(await s.orders.update(paid, 1)).toBe(true);
    expect(await s.orders.update({ ...order, status: 'cancelled', version: 2 }, 1)).toBe(false);
    expect(await s.orders.get(order.id)).toEqual(paid);
    expect(await s.orders.deleteByClient(client.id)).toBe(2);
    expect(await s.orders.get(order.id)).toBeNull();
    expect(await s.orders.deleteByClient(client.id)).toBe(0);
  });
}

export function messageContract(storage: () => Storage): void {
  it('lists a conversation oldest first, by chatbot and visitor', async () => {
    const s = storage();
    const messages = [
      aMessage({ visitorId: 'v1' }),
      aMessage({ visitorId: 'v2' }),
      aMessage({ visitorId: 'v1' }),
      aMessage({ chatbotId: 'bot-other' }),
    ];
    for (const m of messages) await s.messages.insert(m);
    expect(await s.messages.get(messages[0]!.id)).toEqual(messages[0]);
    expect(await s.messages.get('msg_missing')).toBeNull();
    const bot = await s.messages.list({ chatbotId: 'bot-1' }, { offset: 0, limit: 10 });
    expect(bot).toEqual({ items: messages.slice(0, 3), total: 3 });
    const visitor = await s.messages.list({ chatbotId: 'bot-1', visitorId: 'v1' }, { offset: 1, limit: 1 });
    expect(visitor).toEqual({ items: [messages[2]], total: 2 });
  });
}

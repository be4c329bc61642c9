import { beforeEach, describe, expect, it } from 'vitest';
import {
  createDomain,
  createMemoryEventBus,
  createOutboxRelay,
  createRuntime,
  type Domain,
  type DomainEvent,
  type OutboxRelay,
  type Storage,
} from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { countingIds, type ManualClock, manualClock } from '../support/clock.js';

describe('domain', () => {
  let storage: Storage;
  let clock: ManualClock;
  let domain: Domain;
  let relay: OutboxRelay;
  let published: DomainEvent[];

  beforeEach(() => {
    storage = createMemoryStorage();
    clock = manualClock();
    const bus = createMemoryEventBus();
    published = [];
    bus.subscribe((event) => {
      published.push(event);
    });
    const runtime = createRuntime({ storage, clock, ids: countingIds() });
    relay = createOutboxRelay(runtime, { bus });
    domain = createDomain(runtime);
  });

  const events = async (): Promise<{ type: string; data: Record<string, unknown> }[]> => {
    await relay.flush();
    return published.map(({ type, data }) => ({ type, data: { ...data } }));
  };

  it('creates a client with ids, times and version, and publishes client.created', async () => {
    const client = await domain.clients.create({ name: 'Ada', email: 'Ada@Example.com', city: 'Lyon' });
    expect(client).toEqual({
      id: 'cli_1',
      name: 'Ada',
      email: 'ada@example.com',
      phone: null,
      city: 'Lyon',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      version: 1,
    });
    expect(await domain.clients.get('cli_1')).toEqual(client);
    expect(published).toEqual([]);
    const [event] = await relay.flush().then(() => published);
    expect(event).toMatchObject({ id: 'evt_2', type: 'client.created', data: client });
  });

  it('stores nothing and publishes nothing when the e-mail is taken', async () => {
    await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    await expect(domain.clients.create({ name: 'Other', email: 'ADA@example.com' })).rejects.toMatchObject({
      code: 'conflict',
      status: 409,
    });
    expect((await domain.clients.list({ range: { offset: 0, limit: 10 } })).total).toBe(1);
    expect((await events()).map((e) => e.type)).toEqual(['client.created']);
  });

  it('patches only the fields sent, bumps the version, and skips no-op changes', async () => {
    const created = await domain.clients.create({
      name: 'Ada',
      email: 'ada@example.com',
      phone: '+33 1 23 45 67',
    });
    clock.advance(1000);
    const patched = await domain.clients.update(created.id, { city: 'Paris', phone: null });
    expect(patched).toMatchObject({ name: 'Ada', city: 'Paris', phone: null, version: 2 });
    expect(patched.updatedAt).toBe('2026-01-01T00:00:01.000Z');
    expect(await domain.clients.update(created.id, { city: 'Paris' })).toEqual(patched);
    const types = (await events()).map((e) => e.type);
    expect(types).toEqual(['client.created', 'client.updated']);
  });

  it('refuses a write at a stale version with precondition_failed', async () => {
    const created = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    await domain.clients.update(created.id, { name: 'Ada L.' });
    await expect(
      domain.clients.update(created.id, { name: 'Stale' }, { ifVersion: 1 }),
    ).rejects.toMatchObject({
      code: 'precondition_failed',
      status: 412,
    });
    expect((await domain.clients.get(created.id)).name).toBe('Ada L.');
  });

  it('applies concurrent patches without losing either', async () => {
    const created = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    await Promise.all([
      domain.clients.update(created.id, { city: 'Lyon' }),
      domain.clients.update(created.id, { phone: '+33 6 00 00 00 00' }),
    ]);
    expect(await domain.clients.get(created.id)).toMatchObject({
      city: 'Lyon',
      phone: '+33 6 00 00 00 00',
      version: 3,
    });
  });

  it('replaces every field', async () => {
    const created = await domain.clients.create({ name: 'Ada', email: 'ada@example.com', city: 'Lyon' });
    const replaced = await domain.clients.replace(created.id, {
      name: 'Grace',
      email: 'grace@example.com',
      phone: null,
      city: null,
    });
    expect(replaced).toMatchObject({ name: 'Grace', email: 'grace@example.com', city: null, version: 2 });
  });

  it('deletes a client with its orders and publishes client.deleted; a second delete is not_found', async () => {
    const client = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const order = await domain.orders.create({ clientId: client.id, total: '10.00', currency: 'EUR' });
    await domain.clients.delete(client.id);
    await expect(domain.clients.get(client.id)).rejects.toMatchObject({ code: 'not_found', status: 404 });
    expect(await domain.orders.find(order.id)).toBeNull();
    await expect(domain.clients.delete(client.id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await events()).map((e) => e.type)).toEqual([
      'client.created',
      'order.created',
      'client.deleted',
    ]);
  });

  it('creates orders only for existing clients, with the customer e-mail in the event', async () => {
    await expect(
      domain.orders.create({ clientId: 'cli_none', total: '1.00', currency: 'EUR' }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'clientId', code: 'unknown_reference' }],
    });
    const client = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const order = await domain.orders.create({ clientId: client.id, total: '129.90', currency: 'EUR' });
    expect(order).toMatchObject({ clientId: client.id, status: 'pending', total: '129.90', version: 1 });
    const created = (await events()).find((e) => e.type === 'order.created');
    expect(created?.data).toMatchObject({ id: order.id, customerEmail: 'ada@example.com' });
  });

  it('moves orders along the life cycle, naming each event after the new status', async () => {
    const client = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const order = await domain.orders.create({ clientId: client.id, total: '5.00', currency: 'EUR' });
    await domain.orders.update(order.id, { status: 'paid' });
    const shipped = await domain.orders.update(order.id, { status: 'shipped' });
    expect(shipped).toMatchObject({ status: 'shipped', version: 3 });
    await expect(domain.orders.update(order.id, { status: 'pending' })).rejects.toMatchObject({
      code: 'conflict',
      details: [{ field: 'status', code: 'invalid_transition' }],
    });
    // @ts-expect-error not a status an order has: refused at compile time, and at run time
    await expect(domain.orders.update(order.id, { status: 'lost' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    const all = await events();
    expect(all.map((e) => e.type)).toEqual([
      'client.created',
      'order.created',
      'order.paid',
      'order.shipped',
    ]);
    expect(all[3]?.data).toMatchObject({ previousStatus: 'paid', status: 'shipped' });
  });

  it('lists orders of a client by status, and of many clients at once', async () => {
    const a = await domain.clients.create({ name: 'A', email: 'a@example.com' });
    const b = await domain.clients.create({ name: 'B', email: 'b@example.com' });
    const first = await domain.orders.create({ clientId: a.id, total: '1.00', currency: 'EUR' });
    await domain.orders.create({ clientId: a.id, total: '2.00', currency: 'EUR' });
    await domain.orders.create({ clientId: b.id, total: '3.00', currency: 'EUR' });
    await domain.orders.update(first.id, { status: 'paid' });
    const range = { offset: 0, limit: 10 };
    const paid = await domain.orders.list({ where: { clientId: a.id, status: 'paid' }, range });
    expect(paid.items.map((o) => o.id)).toEqual([first.id]);
    expect((await domain.orders.list({ where: { clientId: [a.id, b.id] }, range })).total).toBe(3);
    expect((await domain.orders.list({ where: { clientId: 'cli_none' }, range })).items).toEqual([]);
  });

  it('records messages as a conversation and publishes message.created', async () => {
    const message = await domain.messages.create({
      chatbotId: 'bot-1',
      visitorId: 'v-9',
      content: 'Where is my order?',
    });
    expect(message).toEqual({
      id: 'msg_1',
      chatbotId: 'bot-1',
      visitorId: 'v-9',
      content: 'Where is my order?',
      // The message started a conversation (a new message belongs to one).
      conversationId: expect.stringMatching(/^cnv_/),
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    const range = { offset: 0, limit: 5 };
    expect((await domain.messages.list({ where: { chatbotId: 'bot-1' }, range })).items).toEqual([message]);
    expect((await events()).map((e) => e.type)).toEqual(['conversation.created', 'message.created']);
    expect((await events())[1]).toMatchObject({ type: 'message.created', data: message });
  });
});

/**
 * A resource's service is typed from its declaration alone: a host's `domain.of(returns)` gets the
 * same record, input, patch and filter types as a built-in's `domain.orders`, with no type written
 * beside either. The types are checked by the compiler (`tsc --noEmit` covers the tests); the calls
 * run against a real domain on memory.
 */
import { beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type Client,
  type clients,
  createDomain,
  createRuntime,
  type Domain,
  defineResource,
  type Order,
  type orders,
  type RecordOf,
  type TypedService,
} from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { returns } from './returns.js';

type Return = RecordOf<typeof returns>;

describe('a typed service', () => {
  let domain: Domain;
  beforeEach(() => {
    domain = createDomain(createRuntime({ storage: createMemoryStorage() }), { resources: [returns] });
  });

  it("types a host resource's records and writes from its declaration, as a built-in's", () => {
    expectTypeOf(domain.of(returns)).toEqualTypeOf<TypedService<typeof returns>>();
    expectTypeOf(domain.orders).toEqualTypeOf<TypedService<typeof orders>>();
    expectTypeOf<Return>().toEqualTypeOf<{
      id: string;
      clientId: string;
      orderId: string;
      reason: string;
      quantity: number;
      note: string | null;
      status: 'requested' | 'approved' | 'refused' | 'refunded';
      createdAt: string;
      updatedAt: string;
      version: number;
    }>();
    expectTypeOf<Order>().toEqualTypeOf<{
      id: string;
      clientId: string;
      total: string;
      currency: string;
      status: 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';
      createdAt: string;
      updatedAt: string;
      version: number;
    }>();
    expectTypeOf<Client>().toEqualTypeOf<RecordOf<typeof clients>>();
    expectTypeOf<Parameters<TypedService<typeof returns>['create']>[0]>().toEqualTypeOf<{
      clientId: string;
      orderId: string;
      reason: string;
      quantity: number;
      note?: string | undefined;
    }>();
    expectTypeOf<Parameters<TypedService<typeof returns>['update']>[1]>().toEqualTypeOf<{
      reason?: string | undefined;
      quantity?: number | undefined;
      note?: string | undefined;
      status?: 'requested' | 'approved' | 'refused' | 'refunded' | undefined;
    }>();
  });

  it("refuses at compile time what the declaration does not allow, on a host's service as on a built-in's", () => {
    const typeErrors = (
      service: TypedService<typeof returns>,
      builtIn: Domain['orders'],
      written: Domain['messages'],
    ) => [
      // @ts-expect-error quantity is a number
      service.create({ clientId: 'cli_1', orderId: 'ord_1', reason: 'Too small', quantity: '2' }),
      // @ts-expect-error clientId is immutable
      service.update('ret_1', { clientId: 'cli_2' }),
      // @ts-expect-error not a state of a return
      service.update('ret_1', { status: 'lost' }),
      // @ts-expect-error reason is not a filter
      service.list({ where: { reason: 'x' }, range: { offset: 0, limit: 1 } }),
      // @ts-expect-error not a sort key of a return
      service.list({ sort: { field: 'reason', descending: false }, range: { offset: 0, limit: 1 } }),
      // @ts-expect-error an order's client is named in its body
      builtIn.create('cli_1', { total: '1.00', currency: 'EUR' }),
      // @ts-expect-error not a status an order has
      builtIn.update('ord_1', { status: 'lost' }),
      // @ts-expect-error an order is not deleted by callers (changes: { replace: false, delete: false })
      builtIn.delete('ord_1'),
      // @ts-expect-error a message is written once (changes: false)
      written.update('msg_1', { content: 'Edited' }),
    ];
    expect(typeErrors).toBeTypeOf('function');
  });

  it("creates, moves and lists a host resource's records through the same methods as a built-in's", async () => {
    const ada = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const order = await domain.orders.create({ clientId: ada.id, total: '12.50', currency: 'EUR' });
    const service = domain.of(returns);
    const made = await service.create({
      clientId: ada.id,
      orderId: order.id,
      reason: 'Too small',
      quantity: 2,
    });
    expect(made).toMatchObject({ status: 'requested', note: null, version: 1 });
    const approved = await service.update(made.id, { status: 'approved' });
    expect(approved.status).toBe('approved');
    const page = await service.list({
      where: { orderId: order.id, status: ['approved', 'refunded'] },
      sort: { field: 'quantity', descending: true },
      range: { offset: 0, limit: 10 },
    });
    expect(page.items.map((r) => r.id)).toEqual([made.id]);
  });

  it("refuses a move the host resource's life cycle does not allow, as an order's", async () => {
    const ada = await domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const order = await domain.orders.create({ clientId: ada.id, total: '12.50', currency: 'EUR' });
    const made = await domain
      .of(returns)
      .create({ clientId: ada.id, orderId: order.id, reason: 'Too small', quantity: 1 });
    const invalid = { code: 'conflict', details: [{ field: 'status', code: 'invalid_transition' }] };
    await expect(domain.of(returns).update(made.id, { status: 'refunded' })).rejects.toMatchObject(invalid);
    await expect(domain.orders.update(order.id, { status: 'delivered' })).rejects.toMatchObject(invalid);
  });

  it('refuses a declaration the domain does not serve', () => {
    const bare = createDomain(createRuntime({ storage: createMemoryStorage() }));
    expect(() => bare.of(returns)).toThrow('No resource named "return" is served.');
  });

  it('refuses a resource whose plural is the event feed’s path, and a subject that is not a relation', () => {
    const runtime = createRuntime({ storage: createMemoryStorage() });
    const named = (input: Partial<Parameters<typeof defineResource>[0]>) =>
      defineResource({
        name: 'happening',
        idPrefix: 'hap',
        fields: { clientId: z.string(), title: z.string() },
        relations: { clientId: 'client' },
        scopes: { read: 'diary.happenings.read', write: 'diary.happenings.write' },
        ...input,
      });
    expect(() => createDomain(runtime, { resources: [named({ plural: 'events' })] })).toThrow(
      'happening: the plural "events" is the event feed\'s; name the records otherwise.',
    );
    expect(() => named({ subject: 'title' })).toThrow('happening: the subject "title" must be a relation.');
    expect(named({ subject: 'clientId' }).subject).toBe('clientId');
  });
});

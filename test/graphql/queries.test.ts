import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/core/storage/index.js';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { startServer, type TestServer } from './helpers.js';

/**
 * Counts the storage's reads of orders on a real memory storage: `batched` those of many clients at
 * once, `single` those of one client.
 */
function countingStorage(): { storage: Storage; calls: { batched: number; single: number } } {
  const inner = createMemoryStorage();
  const calls = { batched: 0, single: 0 };
  const resources: Storage['resources'] = {
    ...inner.resources,
    list: (resource, query) => {
      if (resource === 'order' && Array.isArray(query.where.clientId)) calls.batched++;
      else if (resource === 'order' && typeof query.where.clientId === 'string') calls.single++;
      return inner.resources.list(resource, query);
    },
  };
  const storage = new Proxy(inner, {
    get: (target, key) => (key === 'resources' ? resources : Reflect.get(target, key)),
  });
  return { storage, calls };
}

describe('GraphQL queries and mutations over HTTP', () => {
  let server: TestServer;
  const counted = countingStorage();
  const ids: string[] = [];

  beforeAll(async () => {
    server = await startServer({ storage: counted.storage });
    const { domain } = server.switchboard;
    for (const n of [1, 2, 3]) {
      const client = await domain.clients.create({ name: `Client ${n}`, email: `c${n}@example.com` });
      ids.push(client.id);
      await domain.orders.create({ clientId: client.id, total: `${n}0.00`, currency: 'EUR' });
    }
    const paid = await domain.orders.create({ clientId: ids[0]!, total: '5.00', currency: 'EUR' });
    await domain.orders.update(paid.id, { status: 'paid' });
  });
  afterAll(() => server.close());

  it('returns clients with their nested orders, exactly the fields asked for', async () => {
    const { status, body } = await server.gql(
      '{ clients(limit: 20) { id name email orders { id status } } }',
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.clients).toHaveLength(3);
    expect(Object.keys(body.data.clients[0]).sort()).toEqual(['email', 'id', 'name', 'orders']);
    expect(body.data.clients[0].orders.map((o: { status: string }) => o.status)).toEqual(['PENDING', 'PAID']);
    expect(body.data.clients[2].orders).toHaveLength(1);
  });

  it('loads the nested orders of every client in one storage call (no N+1)', async () => {
    const before = { ...counted.calls };
    const { body } = await server.gql('{ clients { id orders { id } paid: orders(status: PAID) { id } } }');
    expect(body.data.clients).toHaveLength(3);
    // One call for all orders, one for the PAID filter: two in all, whatever the number of clients.
    expect(counted.calls.batched - before.batched).toBe(2);
    expect(counted.calls.single).toBe(before.single);
  });

  it('filters orders by status', async () => {
    const { body } = await server.gql(
      'query($id: ID!) { client(id: $id) { orders(status: PAID) { status total } } }',
      {
        id: ids[0],
      },
    );
    expect(body.data.client.orders).toEqual([{ status: 'PAID', total: '5.00' }]);
  });

  it('limits the orders of each client, oldest first, and refuses a limit out of range', async () => {
    const before = { ...counted.calls };
    const { body } = await server.gql('{ clients { orders(limit: 1) { status } } }');
    expect(body.errors).toBeUndefined();
    expect(body.data.clients[0].orders).toEqual([{ status: 'PENDING' }]);
    expect(counted.calls.batched - before.batched).toBe(1); // still one storage call for every client
    const refused = await server.gql('{ clients { orders(limit: 0) { id } } }');
    expect(refused.body.errors[0].extensions.code).toBe('validation_failed');
    expect(refused.body.errors[0].message).toContain('limit must be between 1 and');
  });

  it('creates a client, returns createdAt as ISO-8601 and finds it again', async () => {
    const created = await server.gql(
      'mutation($input: CreateClientInput!) { createClient(input: $input) { id name createdAt } }',
      { input: { name: 'Ada Lovelace', email: 'ADA@example.com' } },
    );
    const client = created.body.data.createClient;
    expect(client.name).toBe('Ada Lovelace');
    expect(client.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const found = await server.gql('query($id: ID!) { client(id: $id) { id email orders { id } } }', {
      id: client.id,
    });
    expect(found.body.data.client).toEqual({ id: client.id, email: 'ada@example.com', orders: [] });
  });

  it('updates and deletes a client', async () => {
    const { body: created } = await server.gql(
      'mutation { createClient(input: { name: "Bob", email: "bob@example.com" }) { id } }',
    );
    const id = created.data.createClient.id;
    const updated = await server.gql(
      'mutation($id: ID!) { updateClient(id: $id, input: { city: "Lyon" }) { city name } }',
      {
        id,
      },
    );
    expect(updated.body.data.updateClient).toEqual({ city: 'Lyon', name: 'Bob' });
    const deleted = await server.gql('mutation($id: ID!) { deleteClient(id: $id) }', { id });
    expect(deleted.body.data.deleteClient).toBe(true);
    const gone = await server.gql('query($id: ID!) { client(id: $id) { id } }', { id });
    expect(gone.body.data.client).toBeNull();
    const again = await server.gql('mutation($id: ID!) { deleteClient(id: $id) }', { id });
    expect(again.body.errors[0].extensions.code).toBe('not_found');
  });

  it('keeps domain validation errors with their code and field details', async () => {
    const { status, body } = await server.gql(
      'mutation { createClient(input: { name: "X", email: "not-an-email" }) { id } }',
    );
    expect(status).toBe(200);
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions.code).toBe('validation_failed');
    expect(body.errors[0].extensions.details[0]).toMatchObject({ field: 'email', code: 'invalid_format' });
  });

  it('refuses an out-of-range limit with an error naming the maximum instead of clamping', async () => {
    const { body } = await server.gql('{ clients(limit: 101) { id } }');
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions.code).toBe('validation_failed');
    expect(body.errors[0].message).toContain('between 1 and 100');
    const zero = await server.gql('{ clients(limit: 0) { id } }');
    expect(zero.body.errors[0].extensions.details[0]).toMatchObject({ field: 'limit', code: 'out_of_range' });
  });

  it('applies the default limit of 20 when none is given', async () => {
    for (let i = 0; i < 20; i++)
      await server.switchboard.domain.clients.create({ name: `Bulk ${i}`, email: `bulk${i}@example.com` });
    const { body } = await server.gql('{ clients { id } }');
    expect(body.data.clients).toHaveLength(20);
  });

  it('moves an order along its life cycle and refuses an illegal move as a conflict', async () => {
    const order = await server.switchboard.domain.orders.create({
      clientId: ids[1]!,
      total: '9.99',
      currency: 'EUR',
    });
    const paid = await server.gql(
      'mutation($id: ID!) { updateOrderStatus(id: $id, status: PAID) { status } }',
      { id: order.id },
    );
    expect(paid.body.data.updateOrderStatus.status).toBe('PAID');
    const back = await server.gql(
      'mutation($id: ID!) { updateOrderStatus(id: $id, status: PENDING) { status } }',
      {
        id: order.id,
      },
    );
    expect(back.body.errors[0].extensions.code).toBe('conflict');
  });

  it('sends a message and reads the conversation back with visitor_id', async () => {
    await server.gql(
      'mutation { sendMessage(input: { chatbotId: "bot-q", visitorId: "v1", content: "Hello" }) { id } }',
    );
    const { body } = await server.gql('{ messages(chatbotId: "bot-q") { content visitor_id timestamp } }');
    expect(body.data.messages).toEqual([
      { content: 'Hello', visitor_id: 'v1', timestamp: expect.any(String) },
    ]);
  });

  describe('authorization', () => {
    it('needs a valid credential: 401 with a WWW-Authenticate challenge', async () => {
      const { status, body } = await server.gql('{ clients { id } }', undefined, 'nonsense');
      expect(status).toBe(401);
      expect(body.errors[0].extensions.code).toBe('unauthorized');
    });

    it('checks the scope of every field from the one scope map', async () => {
      const readOnly = 'scopes:crm.clients.read';
      const list = await server.gql('{ clients(limit: 1) { id } }', undefined, readOnly);
      expect(list.body.data.clients).toHaveLength(1);
      const nested = await server.gql('{ clients(limit: 1) { orders { id } } }', undefined, readOnly);
      expect(nested.body.errors[0].extensions.code).toBe('forbidden');
      expect(nested.body.errors[0].path).toEqual(['clients', 0, 'orders']);
      const write = await server.gql(
        'mutation { createClient(input: { name: "N", email: "n@example.com" }) { id } }',
        undefined,
        readOnly,
      );
      expect(write.body.errors[0].extensions.code).toBe('forbidden');
      expect(write.body.errors[0].message).toContain('crm.clients.write');
    });

    it("shows a user only their own client; another user's is null or not found, never revealed", async () => {
      const [own, other] = [ids[0]!, ids[1]!];
      const token = `user:${own}`;
      const list = await server.gql('{ clients { id } }', undefined, token);
      expect(list.body.data.clients).toEqual([{ id: own }]);
      const foreign = await server.gql('query($id: ID!) { client(id: $id) { id } }', { id: other }, token);
      expect(foreign.body.data.client).toBeNull();
      const update = await server.gql(
        'mutation($id: ID!) { updateClient(id: $id, input: { city: "X" }) { id } }',
        { id: other },
        token,
      );
      expect(update.body.errors[0].extensions.code).toBe('not_found');
      const missing = await server.gql(
        'mutation { updateClient(id: "cli_missing", input: { city: "X" }) { id } }',
        undefined,
        token,
      );
      expect(missing.body.errors[0].message.replace('cli_missing', other)).toBe(
        update.body.errors[0].message,
      );
    });

    it("hides another user's orders and refuses creating clients on a user's behalf", async () => {
      const [own, other] = [ids[0]!, ids[1]!];
      const token = `user:${own}`;
      const firstOrderOf = async (clientId: string) =>
        (await server.switchboard.domain.orders.list({ where: { clientId }, range: { offset: 0, limit: 1 } }))
          .items[0]!;
      const foreign = await firstOrderOf(other);
      const mine = await firstOrderOf(own);
      const query = 'query($id: ID!) { order(id: $id) { id } }';
      expect((await server.gql(query, { id: foreign.id }, token)).body.data.order).toBeNull();
      expect((await server.gql(query, { id: mine.id }, token)).body.data.order).toEqual({ id: mine.id });
      const move = await server.gql(
        'mutation($id: ID!) { updateOrderStatus(id: $id, status: CANCELLED) { id } }',
        { id: foreign.id },
        token,
      );
      expect(move.body.errors[0].extensions.code).toBe('not_found');
      const create = await server.gql(
        'mutation { createClient(input: { name: "U", email: "u@example.com" }) { id } }',
        undefined,
        token,
      );
      expect(create.body.errors[0].extensions.code).toBe('forbidden');
    });
  });
});

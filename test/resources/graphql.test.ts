/** A host-declared resource over GraphQL: queries, mutations, the life-cycle move, Client.<plural>, scopes, changes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { collect, startServer, type TestServer, testAuthenticate } from '../graphql/helpers.js';
import { returns } from './returns.js';

const WRITER = 'scopes:shop.returns.read,shop.returns.write,crm.clients.read';
const READER = 'scopes:shop.returns.read';

describe('a host-declared resource over GraphQL', () => {
  let server: TestServer;
  let clientId = '';
  let orderId = '';
  beforeAll(async () => {
    server = await startServer({
      resources: [returns],
      // Users of this test may read and write returns (the helper's users hold the built-in scopes only).
      authenticate: async (request) => {
        const principal = await testAuthenticate(request);
        if (principal.kind !== 'user') return principal;
        return {
          ...principal,
          scopes: new Set([...principal.scopes, 'shop.returns.read', 'shop.returns.write']),
        };
      },
    });
    const client = await server.switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    clientId = client.id;
    orderId = (
      await server.switchboard.domain.orders.create({ clientId: client.id, total: '5.00', currency: 'EUR' })
    ).id;
  });
  afterAll(() => server.close());

  it('creates, lists with a filter, moves along the life cycle and reads it under the client', async () => {
    const created = await server.gql(
      'mutation($input: CreateReturnInput!) { createReturn(input: $input) { id reason quantity status note } }',
      { input: { clientId, orderId, reason: 'Too big', quantity: 2 } },
      WRITER,
    );
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createReturn).toMatchObject({
      reason: 'Too big',
      quantity: 2,
      status: 'REQUESTED',
      note: null,
    });
    const id = created.body.data.createReturn.id;

    const moved = await server.gql(
      `mutation { moveReturn(id: "${id}", status: APPROVED) { status version } }`,
      {},
      WRITER,
    );
    expect(moved.body.data.moveReturn).toEqual({ status: 'APPROVED', version: 2 });
    const refused = await server.gql(
      `mutation { moveReturn(id: "${id}", status: REQUESTED) { status } }`,
      {},
      WRITER,
    );
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'conflict' });

    const listed = await server.gql(
      `{ returns(status: APPROVED, orderId: "${orderId}") { id } }`,
      {},
      WRITER,
    );
    expect(listed.body.data.returns).toEqual([{ id }]);
    const underClient = await server.gql(
      `{ client(id: "${clientId}") { name returns { id status } } }`,
      {},
      WRITER,
    );
    expect(underClient.body.data.client).toEqual({ name: 'Ada', returns: [{ id, status: 'APPROVED' }] });

    const bad = await server.gql(
      'mutation($input: CreateReturnInput!) { createReturn(input: $input) { id } }',
      { input: { clientId, orderId, reason: 'x', quantity: 1000 } },
      WRITER,
    );
    expect(bad.body.errors[0].extensions.details[0]).toEqual({
      field: 'quantity',
      code: 'out_of_range',
      message: 'quantity must be between 1 and 100.',
    });
  });

  it('checks the scopes of each field', async () => {
    const write = await server.gql(
      'mutation($input: CreateReturnInput!) { createReturn(input: $input) { id } }',
      { input: { clientId, orderId, reason: 'x', quantity: 1 } },
      READER,
    );
    expect(write.body.errors[0].extensions.code).toBe('forbidden');
    expect((await server.gql('{ returns { id } }', {}, READER)).body.errors).toBeUndefined();
    expect(
      (await server.gql('{ returns { id } }', {}, 'scopes:crm.clients.read')).body.errors[0].extensions.code,
    ).toBe('forbidden');
  });

  it("a user sees only their own client's returns", async () => {
    const other = await server.switchboard.domain.clients.create({
      name: 'Grace',
      email: 'grace@example.com',
    });
    const otherOrder = await server.switchboard.domain.orders.create({
      clientId: other.id,
      total: '1.00',
      currency: 'EUR',
    });
    const theirs = await server.switchboard.domain.resources.return!.create({
      clientId: other.id,
      orderId: otherOrder.id,
      reason: 'theirs',
      quantity: 1,
    });
    const asAda = await server.gql(
      `{ returns { clientId } return(id: "${theirs.id}") { id } }`,
      {},
      `user:${clientId}`,
    );
    expect(asAda.body.data.return).toBeNull();
    expect(new Set(asAda.body.data.returns.map((r: { clientId: string }) => r.clientId))).toEqual(
      new Set([clientId]),
    );
  });

  it('tells a subscriber of each change over WebSocket', async () => {
    const client = server.ws(WRITER);
    const changes = collect<{ data: { onReturnChange: { event: string; return: { reason: string } } } }>(
      client,
      `subscription { onReturnChange(clientId: "${clientId}") { event return { reason } } }`,
      2,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const service = server.switchboard.domain.resources.return!;
    const made = await service.create({ clientId, orderId, reason: 'Live', quantity: 1 });
    await service.update(made.id, { status: 'refused' });
    expect(
      (await changes).map((c) => [c.data.onReturnChange.event, c.data.onReturnChange.return.reason]),
    ).toEqual([
      ['return.created', 'Live'],
      ['return.refused', 'Live'],
    ]);
  });
});

describe('Client.<plural> of a declared resource', () => {
  it('reads the records of every client of the operation in one storage call', async () => {
    const storage = createMemoryStorage();
    let lists = 0;
    const list = storage.resources.list.bind(storage.resources);
    (storage.resources as { list: typeof list }).list = (resource, query) => {
      if (resource === 'return') lists++;
      return list(resource, query);
    };
    const server = await startServer({ storage, resources: [returns] });
    try {
      const { domain } = server.switchboard;
      for (const name of ['Ada', 'Grace', 'Alan']) {
        const client = await domain.clients.create({ name, email: `${name.toLowerCase()}@example.com` });
        const order = await domain.orders.create({ clientId: client.id, total: '1.00', currency: 'EUR' });
        for (let i = 1; i <= 2; i++)
          await domain.resources.return!.create({
            clientId: client.id,
            orderId: order.id,
            reason: `${name} ${i}`,
            quantity: i,
          });
      }
      const before = lists;
      const { body } = await server.gql(
        '{ clients { name returns(limit: 1, offset: 1) { reason } } }',
        {},
        WRITER,
      );
      expect(body.data.clients).toEqual([
        { name: 'Ada', returns: [{ reason: 'Ada 2' }] },
        { name: 'Grace', returns: [{ reason: 'Grace 2' }] },
        { name: 'Alan', returns: [{ reason: 'Alan 2' }] },
      ]);
      expect(lists - before).toBe(1);
    } finally {
      await server.close();
    }
  });
});

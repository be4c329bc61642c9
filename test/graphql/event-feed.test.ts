/**
 * The event feed as a GraphQL connection: the same pages, cursors and access as `GET /events`.
 */
import { describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../src/index.js';
import { testAuthenticate } from '../rest/support.js';

interface Connection {
  edges: { cursor: string; node: { id: string; type: string; data: string; subject: string | null } }[];
  pageInfo: { endCursor: string; hasNextPage: boolean };
}

describe('events as a GraphQL connection', () => {
  const setup = () =>
    createSwitchboard({ authenticate: testAuthenticate, rateLimits: false, console: false, rest: false });
  const query = async (
    switchboard: ReturnType<typeof setup>,
    text: string,
    token = 'admin',
  ): Promise<{ data?: { events: Connection }; errors?: { extensions: { code: string } }[] }> => {
    const response = await switchboard.fetch(
      new Request('http://localhost/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: text }),
      }),
    );
    return response.json() as never;
  };
  const page = `edges { cursor node { id type subject data } } pageInfo { endCursor hasNextPage }`;

  it('pages through the events in commit order, each page after the last endCursor', async () => {
    const switchboard = setup();
    const ada = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    const order = await switchboard.domain.orders.create({
      clientId: ada.id,
      total: '3.00',
      currency: 'EUR',
    });
    const first = (await query(switchboard, `{ events(first: 1) { ${page} } }`)).data!.events;
    expect(first.edges.map((e) => e.node.type)).toEqual(['client.created']);
    expect(first.pageInfo).toEqual({ endCursor: first.edges[0]!.cursor, hasNextPage: true });
    const after = first.pageInfo.endCursor;
    const second = (await query(switchboard, `{ events(after: "${after}", types: ["order.*"]) { ${page} } }`))
      .data!.events;
    expect(second.edges.map((e) => e.node.type)).toEqual(['order.created']);
    expect(JSON.parse(second.edges[0]!.node.data)).toMatchObject({ id: order.id, total: { amount: '3.00' } });
    expect(second.pageInfo.hasNextPage).toBe(false);
  });

  it('refuses as the REST feed does: a bad cursor, a scope that reads nothing asked, first out of range', async () => {
    const switchboard = setup();
    const codes = async (text: string, token?: string) =>
      (await query(switchboard, text, token)).errors?.map((e) => e.extensions.code);
    expect(await codes(`{ events(after: "nope") { ${page} } }`)).toEqual(['bad_request']);
    expect(await codes(`{ events(types: ["order.*"]) { ${page} } }`, 'scopes:crm.clients.read')).toEqual([
      'forbidden',
    ]);
    expect(await codes(`{ events(first: 101) { ${page} } }`)).toEqual(['validation_failed']);
  });

  it('shows a signed-in user only their own client’s events', async () => {
    const switchboard = setup();
    const ada = await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' });
    await switchboard.domain.clients.create({ name: 'Grace', email: 'grace@example.com' });
    const mine = (await query(switchboard, `{ events { ${page} } }`, `user:${ada.id}`)).data!.events;
    expect(mine.edges.map((e) => JSON.parse(e.node.data).id)).toEqual([ada.id]);
  });
});

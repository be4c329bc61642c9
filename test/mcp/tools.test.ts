/**
 * The MCP endpoint as an agent uses it: the SDK's own `Client` over Streamable HTTP lists the tools
 * derived from the built-in and a host's resources, books and confirms an appointment, reads an
 * invalid move as a tool error, and the change is the same write as REST's (visible there, announced
 * by a signed webhook). The tool list follows the key's scopes, and a signed-in user reaches only
 * their own records.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import packageJson from '../../package.json' with { type: 'json' };
import { createSwitchboard, defineResource, type Switchboard } from '../../src/index.js';
import { type NodeServer, serve } from '../../src/node/index.js';
import { appTokenFor, startDemo } from '../oauth/support.js';
import { type ReceivedWebhook, startReceiver } from '../resources/receiver.js';
import { postMcp } from '../support/mcp.js';
import { until } from '../support/until.js';

const ADMIN = 'sbk_mcp_tools_admin_key_0123456789abcdefgh';

const repairs = defineResource({
  name: 'repair-job',
  idPrefix: 'rep',
  description: 'A bicycle brought in for repair.',
  owner: 'clientId',
  relations: { clientId: 'client' },
  fields: { clientId: z.string(), bike: z.string().max(100) },
  lifecycle: {
    field: 'status',
    initial: 'open',
    states: { open: { to: ['done'] }, done: { to: [] } },
  },
  scopes: { read: 'shop.repairs.read', write: 'shop.repairs.write' },
});

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** The problem an error result carries as JSON in its second text item. */
const problemOf = (result: object) =>
  JSON.parse((result as { content: { text: string }[] }).content[1]!.text) as {
    code: string;
    errors?: unknown[];
  };

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

describe('the MCP endpoint, with the SDK client', () => {
  let switchboard: Switchboard;
  let server: NodeServer;
  let receiver: NodeServer;
  let received: ReceivedWebhook[] = [];
  let agent: Client;
  let clientId = '';

  beforeAll(async () => {
    switchboard = createSwitchboard({
      oauth: { adminApiKey: ADMIN },
      resources: [repairs],
      graphql: false,
      webhooks: { outbound: { allowHttp: true, allowPrivateAddresses: true } },
      relayIntervalMs: 50,
    });
    switchboard.start();
    server = await serve({ fetch: switchboard.fetch, port: 0, shutdownSignals: [] });
    ({ server: receiver, received } = await startReceiver());
    await switchboard.oauth!.ready;
    await switchboard.webhooks!.admin.createEndpoint({
      url: `${receiver.url}/hooks`,
      eventTypes: ['booking.*'],
    });
    clientId = (await switchboard.domain.clients.create({ name: 'Ada', email: 'ada@example.com' })).id;
    agent = await connect(server.url, ADMIN);
  });
  afterAll(async () => {
    await agent?.close();
    await server?.close();
    await receiver?.close();
    await switchboard?.close();
  });

  it('lists the tools of every resource, with schemas and hints from the declarations', async () => {
    const { tools } = await agent.listTools();
    const listed = tools.map((t) => t.name);
    expect(listed).toEqual(
      expect.arrayContaining([
        'list_bookings',
        'get_booking',
        'create_booking',
        'move_booking',
        'list_conversations',
        'move_conversation',
        'list_clients',
        'get_client',
        'create_client',
        'list_repair_jobs',
        'get_repair_job',
        'create_repair_job',
        'update_repair_job',
        'delete_repair_job',
        'move_repair_job',
      ]),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('list_bookings')!.annotations).toMatchObject({
      readOnlyHint: true,
      idempotentHint: true,
    });
    expect(byName.get('delete_repair_job')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('move_repair_job')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('create_booking')!.inputSchema.properties).toHaveProperty('startsAt');
    expect(byName.get('move_booking')!.inputSchema.properties).toHaveProperty('status');
    expect(byName.get('create_booking')!.inputSchema.properties).toHaveProperty('idempotencyKey');
    expect(byName.get('move_booking')!.inputSchema.properties).toHaveProperty('ifVersion');
    expect(byName.get('get_repair_job')!.description).toContain('A bicycle brought in for repair.');
  });

  it('books and confirms an appointment: the same write as REST, announced by a signed webhook', async () => {
    const created = await agent.callTool({
      name: 'create_booking',
      arguments: { clientId, service: 'Haircut', startsAt: '2026-12-01T10:00:00Z', durationMinutes: 30 },
    });
    expect(created.isError).toBeFalsy();
    const booking = created.structuredContent as { id: string; status: string };
    expect(booking.status).toBe('requested');

    const confirmed = await agent.callTool({
      name: 'move_booking',
      arguments: { id: booking.id, status: 'confirmed' },
    });
    expect(confirmed.isError).toBeFalsy();
    expect((confirmed.structuredContent as { status: string }).status).toBe('confirmed');

    const invalid = await agent.callTool({
      name: 'move_booking',
      arguments: { id: booking.id, status: 'requested' },
    });
    expect(invalid.isError).toBe(true);
    expect(problemOf(invalid).code).toMatch(/invalid_transition|conflict/);
    expect((invalid.content as { text: string }[])[0]!.text).toMatch(/^(invalid_transition|conflict): /);

    // ifVersion is If-Match: a move from a version that is no longer current is refused.
    const stale = await agent.callTool({
      name: 'move_booking',
      arguments: { id: booking.id, status: 'cancelled', ifVersion: 1 },
    });
    expect(stale.isError).toBe(true);
    expect(problemOf(stale).code).toBe('precondition_failed');

    const notValid = await agent.callTool({
      name: 'create_booking',
      arguments: { clientId, service: 'Haircut', startsAt: 'tomorrow', durationMinutes: 30 },
    });
    expect(notValid.isError).toBe(true);
    expect(problemOf(notValid)).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ field: 'startsAt' })],
    });

    // A retried create with the same idempotencyKey gets the first booking back; another body is refused.
    const retry = { clientId, service: 'Massage', startsAt: '2026-12-02T10:00:00Z', durationMinutes: 60 };
    const first = await agent.callTool({
      name: 'create_booking',
      arguments: { ...retry, idempotencyKey: 'k-1' },
    });
    const again = await agent.callTool({
      name: 'create_booking',
      arguments: { ...retry, idempotencyKey: 'k-1' },
    });
    expect((again.structuredContent as { id: string }).id).toBe(
      (first.structuredContent as { id: string }).id,
    );
    const changed = await agent.callTool({
      name: 'create_booking',
      arguments: { ...retry, durationMinutes: 30, idempotencyKey: 'k-1' },
    });
    expect(changed.isError).toBe(true);
    const massages = await agent.callTool({ name: 'list_bookings', arguments: { service: 'Massage' } });
    expect((massages.structuredContent as { total: number }).total).toBe(1);

    const rest = await fetch(`${server.url}/api/v1/bookings/${booking.id}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect((await rest.json()).status).toBe('confirmed');
    await until(() => received.some((w) => w.event === 'booking.confirmed' && w.data.id === booking.id));
    expect(received.find((w) => w.event === 'booking.confirmed')!.signature).toBeTruthy();
  });

  it('answers an unknown tool with invalid params, arguments of the wrong shape with a tool error naming the field, and a missing key with a Bearer challenge', async () => {
    await expect(agent.callTool({ name: 'drop_tables', arguments: {} })).rejects.toThrow(/Unknown tool/);
    const shapeless = await agent.callTool({ name: 'get_booking', arguments: {} });
    expect(shapeless.isError).toBe(true);
    const [summary, problem] = shapeless.content as { text: string }[];
    expect(summary!.text).toMatch(/^validation_failed: /);
    expect(JSON.parse(problem!.text).errors).toEqual([expect.objectContaining({ field: 'id' })]);
    const anonymous = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    // GET opens the change stream (test/mcp/changes.test.ts): asked for anything else, it says so.
    const get = await fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(get.status).toBe(406);
    const put = await fetch(`${server.url}/mcp`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
  });

  it("answers a web page only from its own origin, even with a valid key (MCP's Origin rule)", async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const from = (origin: string) => postMcp(`${server.url}/mcp`, ADMIN, ping, { origin });
    const foreign = await from('https://evil.example');
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { message: string } }).error.message).toMatch(
      /evil\.example.*mcp\.allowedOrigins/,
    );
    expect((await from(new URL(server.url).origin)).status).toBe(200);
  });

  it('speaks stateless Streamable HTTP: version negotiation, notifications, no batches', async () => {
    const post = async (body: unknown, headers: Record<string, string> = {}) => {
      const response = await postMcp(`${server.url}/mcp`, ADMIN, body, headers);
      return { status: response.status, body: response.status === 202 ? null : await response.json() };
    };
    const initialize = (protocolVersion: string) =>
      post({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
    expect((await initialize('2025-03-26')).body.result.protocolVersion).toBe('2025-03-26');
    const current = (await initialize('2025-06-18')).body.result;
    expect(current.protocolVersion).toBe('2025-06-18');
    // The server names the package's own version (kept in step with package.json by this line).
    expect(current.serverInfo.version).toBe(packageJson.version);
    expect((await initialize('2099-01-01')).body.result.protocolVersion).toBe('2025-11-25');
    expect(await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({
      status: 202,
      body: null,
    });
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'ping' })).body).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'prompts/list' })).body.error.code).toBe(-32601);
    const batch = await post([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    expect(batch.status).toBe(400);
    expect(batch.body.error.code).toBe(-32600);
    const unsupported = await post(
      { jsonrpc: '2.0', id: 5, method: 'ping' },
      { 'mcp-protocol-version': '1999-01-01' },
    );
    expect(unsupported.status).toBe(400);
  });

  it('shows a key only the tools its scopes allow', async () => {
    const { key } = await switchboard.oauth!.admin.createApiKey({
      name: 'Booking reader',
      scopes: ['calendar.bookings.read'],
    });
    const reader = await connect(server.url, key);
    try {
      expect((await names(reader)).sort()).toEqual(['get_booking', 'list_bookings']);
      await expect(reader.callTool({ name: 'list_clients', arguments: {} })).rejects.toThrow(/Unknown tool/);
    } finally {
      await reader.close();
    }
  });
});

describe('the MCP endpoint, for a signed-in user', () => {
  it("reaches only the user's own client's records", async () => {
    const demo = await startDemo();
    try {
      const token = await appTokenFor(demo, demo.ada, ['crm.clients.read', 'crm.orders.read']);
      const agent = await connect(demo.base, token);
      try {
        expect(await names(agent)).not.toContain('create_client');
        const clients = await agent.callTool({ name: 'list_clients', arguments: {} });
        const orders = await agent.callTool({ name: 'list_orders', arguments: {} });
        const ids = (result: typeof clients) =>
          (result.structuredContent as { items: { id: string }[] }).items.map((r) => r.id);
        expect(ids(clients)).toEqual([demo.ada.id]);
        expect(ids(orders)).toEqual([demo.ada.orderId]);
        const other = await agent.callTool({ name: 'get_order', arguments: { id: demo.grace.orderId } });
        expect(other.isError).toBe(true);
        expect(problemOf(other)).toMatchObject({ code: 'not_found' });
      } finally {
        await agent.close();
      }
    } finally {
      await demo.close();
    }
  });
});

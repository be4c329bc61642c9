/**
 * What an agent is told as it happens, with the SDK's own Client: the stream it opens on `GET /mcp`
 * carries `notifications/resources/updated` for each change to a record its user may read (Ada's
 * conversation handed off), and nothing of another user's; the URI reads the record with
 * `resources/read`, as `get_<name>` would. Bounded, and ended when the credentials are revoked.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, appTokenFor, type Demo, startDemo } from '../oauth/support.js';
import { until } from '../support/until.js';

describe("an agent's change stream", () => {
  let demo: Demo;
  const conversation = { ada: '', grace: '' };

  beforeAll(async () => {
    demo = await startDemo({ mcp: { credentialCheckMs: 100 } });
    for (const who of ['ada', 'grace'] as const)
      conversation[who] = (
        await demo.switchboard.domain.conversations.create({
          chatbotId: 'bot-1',
          visitorId: `${who}-visitor`,
          channel: 'web',
          clientId: demo[who].id,
        })
      ).id;
  });
  afterAll(() => demo?.close());

  const connect = async (token: string) => {
    const client = new Client({ name: 'watcher', version: '1.0.0' });
    const seen: { uri: string; event?: unknown }[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      seen.push({ uri: n.params.uri, event: n.params._meta?.['switchboard-kit/event'] });
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${demo.base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return { client, seen };
  };
  /** Until the server has the stream the SDK opened after `initialize`: it subscribes as it answers. */
  const streamOpen = async () => new Promise((resolve) => setTimeout(resolve, 300));

  it("tells Ada's agent of her conversation's hand-off, never of Grace's, and reads it by its URI", async () => {
    const token = await appTokenFor(demo, demo.ada, ['chat.conversations.read']);
    const { client, seen } = await connect(token);
    try {
      const templates = await client.listResourceTemplates();
      expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        'switchboard://conversations/{id}',
      ]);
      await streamOpen();
      const service = demo.switchboard.domain.conversations;
      await service.update(conversation.grace, { status: 'waiting_for_agent' });
      await service.update(conversation.ada, { status: 'waiting_for_agent' });
      const uri = `switchboard://conversations/${conversation.ada}`;
      await until(() => seen.length > 0, 'a notification');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toEqual([{ uri, event: 'conversation.handoff_requested' }]);

      const read = await client.readResource({ uri });
      const record = JSON.parse((read.contents[0] as { text: string }).text);
      expect(record).toMatchObject({ id: conversation.ada, status: 'waiting_for_agent' });
      await expect(
        client.readResource({ uri: `switchboard://conversations/${conversation.grace}` }),
      ).rejects.toThrow(/Resource not found/);
      await expect(client.readResource({ uri: `switchboard://clients/${demo.ada.id}` })).rejects.toThrow(
        /Resource not found/,
      );
    } finally {
      await client.close();
    }
  });

  it('ends the stream when its key is revoked', async () => {
    const created = await fetch(`${demo.base}/oauth/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Watcher', scopes: ['chat.conversations.read'] }),
    });
    const { key, id } = (await created.json()) as { key: string; id: string };
    const stream = await fetch(`${demo.base}/mcp`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': connected\n\n');

    const revoked = await fetch(`${demo.base}/oauth/api-keys/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(revoked.ok).toBe(true);
    // The next check of its credentials (every 100 ms here) ends the stream.
    const ended = async () => {
      for (;;) if ((await reader.read()).done) return 'ended';
    };
    expect(await Promise.race([ended(), new Promise((r) => setTimeout(r, 5_000, 'still open'))])).toBe(
      'ended',
    );
    const again = await fetch(`${demo.base}/mcp`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    expect(again.status).toBe(401);
  });
});

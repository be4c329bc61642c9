/**
 * An agent's write reaches the operator console's live activity as REST's does, marked as an agent's:
 * the create_client tool's `client.created` event arrives on the console's stream with `via: "mcp"`,
 * and a REST create's without it, since both make the same write through the same service and outbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { ADMIN_KEY, type ConsoleInstance, closeConsoles, signIn, startConsoles } from '../console/support.js';
import { postMcp, toolCall } from '../support/mcp.js';

describe("an agent's write in the console's live activity", () => {
  let instance: ConsoleInstance;
  beforeAll(async () => {
    [instance] = (await startConsoles(() => createMemoryStorage(), 1, { relayIntervalMs: 20 })) as [
      ConsoleInstance,
    ];
    instance.switchboard.start();
  });
  afterAll(() => closeConsoles(instance ? [instance] : []));

  it('shows the event of a record created through MCP as an agent’s, and a REST one without the mark', async () => {
    const { cookie } = await signIn(instance.base, { api_key: ADMIN_KEY });
    const stream = await fetch(`${instance.base}/activity/stream`, {
      headers: { cookie, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      const called = await postMcp(
        `${instance.server.url}/mcp`,
        ADMIN_KEY,
        toolCall('create_client', { name: 'Grace', email: 'grace@example.com' }),
      );
      const created = ((await called.json()) as { result: { structuredContent: { id: string } } }).result
        .structuredContent;
      const rest = await fetch(`${instance.server.url}/api/v1/clients`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ada', email: 'ada@example.com' }),
      });
      expect(rest.status).toBe(201);
      const byRest = ((await rest.json()) as { id: string }).id;
      let text = '';
      while (!(text.includes(created.id) && text.includes(byRest))) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      const data = text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as { type: string; summary: string; via?: string });
      const agents = data.find((e) => e.summary.includes(created.id));
      expect(agents).toMatchObject({ type: 'client.created', via: 'mcp' });
      expect(agents!.summary).toContain('by an AI agent (MCP)');
      const restOne = data.find((e) => e.summary.includes(byRest));
      expect(restOne).toMatchObject({ type: 'client.created' });
      expect(restOne).not.toHaveProperty('via');
    } finally {
      await reader.cancel();
    }
  });
});

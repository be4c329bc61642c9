/**
 * An agent's write reaches the operator console's live activity as REST's does: the create_client
 * tool's `client.created` event arrives on the console's stream, since the tool makes the same write
 * through the same service and outbox.
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

  it('shows the event of a record created through MCP', async () => {
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
      let text = '';
      while (!text.includes('"type":"client.created"')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      const data = text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as { type: string; summary: string });
      expect(data).toContainEqual(
        expect.objectContaining({ type: 'client.created', summary: expect.stringContaining(created.id) }),
      );
    } finally {
      await reader.cancel();
    }
  });
});

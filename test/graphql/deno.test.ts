import { describe, expect, it } from 'vitest';
import { DENO_TIMEOUT_MS, runOnDeno } from '../support/deno.js';

describe('GraphQL on Deno', () => {
  it('serves queries over Deno.serve and subscriptions over Deno.upgradeWebSocket', {
    timeout: DENO_TIMEOUT_MS,
  }, async () => {
    expect(await runOnDeno('test/graphql/deno/smoke.ts', { fromSource: true })).toEqual({
      http: { status: 200, body: { data: { messages: [{ content: 'hi from Deno' }] } } },
      subscription: { data: { onNewMessage: { content: 'hi from Deno', visitor_id: 'v' } } },
    });
  });
});

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUN_TIMEOUT_MS, root, runOnBun } from '../support/bun.js';

describe('Bun runtime', () => {
  it('serves REST, GraphQL, subscriptions over Bun WebSockets, OAuth and webhooks from the built package', {
    timeout: BUN_TIMEOUT_MS,
  }, async () => {
    expect(existsSync(`${root}dist/bun/index.js`), 'run `npm run build` first').toBe(true);
    expect(await runOnBun('test/bun/smoke.ts')).toEqual({
      rest: {
        created: 201,
        read: { status: 200, email: 'bun@example.com' },
        list: { status: 200, emails: ['bun@example.com'] },
      },
      graphql: {
        query: { data: { clients: [{ email: 'bun@example.com' }] } },
        mutation: { data: { sendMessage: { content: 'hi from Bun' } } },
      },
      subscription: {
        next: {
          id: '1',
          type: 'next',
          payload: { data: { onNewMessage: { content: 'hi from Bun', visitor_id: 'v1' } } },
        },
        closeCode: 1000,
      },
      withoutSubProtocol: 400,
      oauth: {
        discovery: { status: 200, tokenEndpoint: '/oauth/token', clientCredentials: true },
        token: { status: 200, type: 'Bearer', scope: 'crm.clients.read' },
        restWithToken: 200,
      },
      webhooks: {
        endpoint: 201,
        signed: true,
        tampered: 'mismatch',
        delivered: [{ event: 'client.created', verified: true }],
      },
    });
  });
});

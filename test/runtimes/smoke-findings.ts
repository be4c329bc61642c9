/**
 * What every runtime of the smoke suite must answer (test/runtimes/smoke-checks.mjs), asserted the same
 * way by each driving test: Node's versions, Deno, Bun and Cloudflare's workerd.
 */
import { expect } from 'vitest';
import type { SmokeFindings } from './smoke-checks.mjs';

/** Which runtime answered, and how it serves subscriptions. */
export interface SmokeExpectation {
  /** The `runtime` the checks were given. */
  readonly runtime: string;
  /**
   * `sse` for a runtime with no WebSocket (a Worker): its subscription is an event stream, and it
   * answers any WebSocket handshake with 501. Default `websocket`.
   */
  readonly transport?: 'websocket' | 'sse';
}

/** Asserts the findings of the shared smoke checks, all of them at once. */
export function expectSmokeFindings(
  findings: unknown,
  { runtime, transport = 'websocket' }: SmokeExpectation,
): void {
  const email = `${runtime}@example.com`;
  const message = (content: string, visitor: string) => ({
    data: { onNewMessage: { content, visitor_id: visitor } },
  });
  const expected: SmokeFindings = {
    rest: { created: 201, read: { status: 200, email }, list: { status: 200, emails: [email] } },
    graphql: {
      query: { status: 200, body: { data: { clients: [{ email }] } } },
      createClient: { status: 200, body: { data: { createClient: { email: 'second@example.com' } } } },
    },
    subscription: {
      transport,
      fromRest: message(`hello from ${runtime}`, 'v1'),
      messagesPosted: true,
      sendMessage: { status: 200, body: { data: { sendMessage: { content: `hi from ${runtime}` } } } },
      fromGraphQL: message(`hi from ${runtime}`, 'v2'),
      // The server echoes the client's close; an event stream ends with nothing coming back.
      ...(transport === 'websocket' ? { closeCode: 1000 } : {}),
    },
    // Refused before any upgrade: no sub-protocol it speaks, or no WebSocket at all.
    handshakeWithoutSubProtocol: transport === 'websocket' ? 400 : 501,
    oauth: {
      discovery: { status: 200, tokenEndpoint: '/oauth/token', clientCredentials: true },
      registered: 201,
      token: { status: 200, type: 'Bearer', scope: 'crm.clients.read' },
      readWithToken: 200,
      writeWithToken: 403,
    },
    webhooks: {
      endpoint: 201,
      delivered: [
        { event: 'client.created', verified: true },
        { event: 'client.created', verified: true },
      ],
      tampered: 'mismatch',
      ed25519: {
        endpoint: 201,
        keys: 1,
        delivered: [
          { event: 'client.created', verified: true },
          { event: 'client.created', verified: true },
        ],
        tampered: 'mismatch',
      },
    },
  };
  expect(findings).toStrictEqual(expected);
}

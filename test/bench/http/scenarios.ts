/**
 * The benchmarked requests, and what a right answer to each looks like: every server is checked once
 * before it is timed, so a broken one (a 401, an empty list, GraphQL errors) cannot look fast.
 */
import { randomUUID } from 'node:crypto';
import { BENCH_KEY } from './fixture.js';
import type { RunningServer } from './processes.js';

export const SCENARIO_IDS = ['graphql', 'rest-get', 'rest-list', 'rest-post', 'mcp'] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];

export interface Scenario {
  readonly id: ScenarioId;
  /** How the report names it; `{id}` stands for the client id. */
  readonly label: string;
  readonly method: 'GET' | 'POST';
  /** The path and query, for a server whose seeded clients include `clientId`. */
  path(clientId: string): string;
  readonly headers: Readonly<Record<string, string>>;
  /** The body for `clientId`; each `[<id>]` in it becomes a fresh id per request (every POST makes a new client). */
  body?(clientId: string): string;
  /** Why the answer is wrong, or undefined when it is right. */
  verify(answer: Answer, clientId: string): string | undefined;
}

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const auth = { authorization: `Bearer ${BENCH_KEY}` };
const json = { ...auth, 'content-type': 'application/json', accept: 'application/json' };
const QUERY = '{ clients(limit: 20) { id name email orders { id status } } }';

interface GraphQLBody {
  readonly data?: { readonly clients?: readonly { readonly orders: readonly unknown[] }[] };
  readonly errors?: unknown;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'graphql',
    label: 'POST /graphql clients(limit: 20) + orders',
    method: 'POST',
    path: () => '/graphql',
    headers: json,
    body: () => JSON.stringify({ query: QUERY }),
    verify(answer) {
      if (answer.status !== 200) return `status ${answer.status}`;
      if (!answer.body.includes('"orders"') || answer.body.includes('"errors"')) return 'errors or no orders';
      const clients = (JSON.parse(answer.body) as GraphQLBody).data?.clients ?? [];
      if (clients.length !== 20 || clients.some((c) => c.orders.length !== 3)) return 'not 20 × 3 records';
      return undefined;
    },
  },
  {
    id: 'rest-get',
    label: 'GET /api/v1/clients/{id}',
    method: 'GET',
    path: (clientId) => `/api/v1/clients/${clientId}`,
    headers: auth,
    verify(answer, clientId) {
      if (answer.status !== 200) return `status ${answer.status}`;
      if ((JSON.parse(answer.body) as { id?: string }).id !== clientId) return 'another client';
      return missingHeaders(answer, ['etag', 'cache-control', 'vary']);
    },
  },
  {
    id: 'rest-list',
    label: 'GET /api/v1/clients?limit=20',
    method: 'GET',
    path: () => '/api/v1/clients?limit=20',
    headers: auth,
    verify(answer) {
      if (answer.status !== 200) return `status ${answer.status}`;
      const page = JSON.parse(answer.body) as { items?: unknown[]; total?: number };
      if (page.items?.length !== 20 || (page.total ?? 0) < 20) return 'not a full page with its total';
      return missingHeaders(answer, ['etag', 'link', 'cache-control', 'vary']);
    },
  },
  {
    id: 'rest-post',
    label: 'POST /api/v1/clients',
    method: 'POST',
    path: () => '/api/v1/clients',
    headers: { ...auth, 'content-type': 'application/json' },
    body: () => JSON.stringify({ name: 'Bench Client', email: 'bench-[<id>]@example.com' }),
    verify(answer) {
      if (answer.status !== 201) return `status ${answer.status}`;
      if ((JSON.parse(answer.body) as { name?: string }).name !== 'Bench Client') return 'another client';
      return missingHeaders(answer, ['location', 'etag']);
    },
  },
  {
    // The same read as rest-get, as an agent makes it: measured beside rest-get on the same server.
    id: 'mcp',
    label: 'POST /mcp tools/call get_client',
    method: 'POST',
    path: () => '/mcp',
    headers: {
      ...auth,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: (clientId) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_client', arguments: { id: clientId } },
      }),
    verify(answer, clientId) {
      if (answer.status !== 200) return `status ${answer.status}`;
      const message = JSON.parse(answer.body) as McpAnswer;
      if (message.error || message.result?.isError) return 'a JSON-RPC error or a tool error';
      if (message.result?.structuredContent?.id !== clientId) return 'another client';
      return undefined;
    },
  },
];

interface McpAnswer {
  readonly result?: { readonly isError?: boolean; readonly structuredContent?: { readonly id?: string } };
  readonly error?: unknown;
}

/** Sends the scenario's request once (with a fresh `[<id>]`) and returns the answer, or throws why it is wrong. */
export async function checkOnce(
  server: RunningServer,
  scenario: Scenario,
  clientId: string,
): Promise<Answer> {
  const answer = await send(server, scenario, clientId, scenario.headers);
  const wrong = safely(() => scenario.verify(answer, clientId));
  if (wrong)
    throw new Error(
      `${server.spec.name} answers ${scenario.label} wrongly (${wrong}): ${answer.body.slice(0, 300)}`,
    );
  if (server.spec.authenticates) {
    const { authorization: _, ...anonymous } = scenario.headers;
    const refused = await send(server, scenario, clientId, anonymous);
    if (refused.status !== 401)
      throw new Error(`${server.spec.name} answers ${scenario.label} without a key with ${refused.status}`);
  }
  return answer;
}

async function send(
  server: RunningServer,
  scenario: Scenario,
  clientId: string,
  headers: Readonly<Record<string, string>>,
): Promise<Answer> {
  const response = await fetch(`${server.url}${scenario.path(clientId)}`, {
    method: scenario.method,
    headers,
    body: scenario.body?.(clientId).replaceAll('[<id>]', `check-${randomUUID()}`),
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}

function missingHeaders(answer: Answer, names: readonly string[]): string | undefined {
  const missing = names.filter((name) => !answer.headers[name]);
  return missing.length ? `no ${missing.join(', ')}` : undefined;
}

function safely(verify: () => string | undefined): string | undefined {
  try {
    return verify();
  } catch (error) {
    return String(error);
  }
}

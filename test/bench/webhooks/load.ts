/**
 * Client creation under load: autocannon, in the runner's process, POSTing `/api/v1/clients` with a
 * unique email per request, so every answer is a 201 and every create one `client.created` event —
 * against one server, or split between several (one autocannon each, side by side).
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import type { RunningServer } from '../http/processes.js';
import { JSON_AUTH } from './api.js';

export interface CreateLoad {
  /** Answers with a 2xx status. */
  readonly created: number;
  /** Seconds autocannon ran. */
  readonly seconds: number;
  /** Answers that were not 2xx, by status. */
  readonly unexpected: Readonly<Record<string, number>>;
  /** Connection errors, including timeouts. */
  readonly errors: number;
}

const run = randomUUID().slice(0, 8);
// Module-wide, so parallel autocannon instances (all in this process) never repeat an email either.
let sent = 0;

/** Exactly `amount` creates (`{ amount }`), or as many as `duration` seconds allow (`{ duration }`). */
export async function createClients(
  server: RunningServer,
  connections: number,
  until: { readonly amount: number } | { readonly duration: number },
): Promise<CreateLoad> {
  const result = await autocannon({
    url: `${server.url}/api/v1/clients`,
    method: 'POST',
    headers: JSON_AUTH,
    // Not autocannon's `idReplacement`: it sizes Content-Length for longer ids than it makes, so the
    // server waits for bytes that never come (see test/bench/http/load.ts).
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({ name: 'Bench Client', email: `bench-${run}-${++sent}@example.com` }),
        }),
      },
    ],
    connections,
    pipelining: 1,
    ...until,
  });
  const unexpected: Record<string, number> = {};
  let created = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    if (status.startsWith('2')) created += count;
    else unexpected[status] = count;
  }
  return { created, seconds: result.duration, unexpected, errors: result.errors };
}

/** Why a create load went wrong, or undefined. */
export function problemsOf(load: CreateLoad): string | undefined {
  const problems = Object.entries(load.unexpected).map(([status, count]) => `${count} × ${status}`);
  if (load.errors) problems.push(`${load.errors} connection errors`);
  return problems.length ? problems.join(', ') : undefined;
}

/**
 * `duration` seconds of creates, `connections` split as evenly as they go between `servers` (one
 * autocannon each, all started together); the result is their sum, over the longest of their runs.
 */
export async function createClientsAcross(
  servers: readonly RunningServer[],
  connections: number,
  duration: number,
): Promise<CreateLoad> {
  const share = (i: number): number =>
    Math.floor(connections / servers.length) + (i < connections % servers.length ? 1 : 0);
  const loads = await Promise.all(servers.map((server, i) => createClients(server, share(i), { duration })));
  const unexpected: Record<string, number> = {};
  for (const load of loads)
    for (const [status, count] of Object.entries(load.unexpected))
      unexpected[status] = (unexpected[status] ?? 0) + count;
  return {
    created: loads.reduce((sum, load) => sum + load.created, 0),
    seconds: Math.max(...loads.map((load) => load.seconds)),
    unexpected,
    errors: loads.reduce((sum, load) => sum + load.errors, 0),
  };
}

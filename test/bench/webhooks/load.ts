/**
 * Client creation under load: autocannon, in the runner's process, POSTing `/api/v1/clients` with a
 * unique email per request, so every answer is a 201 and every create one `client.created` event.
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

/**
 * The runner's calls to a Switchboard server, all through its public HTTP API with the admin key:
 * register and delete webhook endpoints, create a client (one `client.created` event), count clients
 * and pending deliveries, and the bench server's own `POST /__bench/start`.
 */
import { BENCH_KEY } from '../http/fixture.js';
import type { RunningServer } from '../http/processes.js';

export const AUTH = { authorization: `Bearer ${BENCH_KEY}` };
export const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
export const EVENT = 'client.created';

async function call(server: RunningServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? AUTH : JSON_AUTH,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text };
}

async function expectStatus<T>(
  server: RunningServer,
  method: string,
  path: string,
  status: number,
  body?: unknown,
): Promise<T> {
  const answer = await call(server, method, path, body);
  if (answer.status !== status)
    throw new Error(
      `${method} ${path} answered ${answer.status}, not ${status}: ${answer.text.slice(0, 300)}`,
    );
  return (answer.text ? JSON.parse(answer.text) : undefined) as T;
}

/** Registers `url` for `client.created` (Switchboard signature scheme); returns the endpoint id. */
export async function registerEndpoint(server: RunningServer, url: string): Promise<string> {
  const body = { url, eventTypes: [EVENT] };
  return (await expectStatus<{ id: string }>(server, 'POST', '/api/v1/webhook-endpoints', 201, body)).id;
}

export async function deleteEndpoint(server: RunningServer, id: string): Promise<void> {
  await expectStatus(server, 'DELETE', `/api/v1/webhook-endpoints/${id}`, 204);
}

export async function createClient(server: RunningServer, email: string): Promise<void> {
  await expectStatus(server, 'POST', '/api/v1/clients', 201, { name: 'Bench Client', email });
}

/** How many clients the server holds (the list's `total`). */
export async function clientTotal(server: RunningServer): Promise<number> {
  return (await expectStatus<{ total: number }>(server, 'GET', '/api/v1/clients?limit=1', 200)).total;
}

/** How many deliveries of the endpoint are still pending. */
export async function pendingDeliveries(server: RunningServer, endpointId: string): Promise<number> {
  const path = `/api/v1/webhook-endpoints/${endpointId}/deliveries?status=pending&limit=1`;
  return (await expectStatus<{ total: number }>(server, 'GET', path, 200)).total;
}

/** Starts the paused server's relay and dispatcher (see server.ts). */
export async function startDispatch(server: RunningServer): Promise<void> {
  await expectStatus(server, 'POST', '/__bench/start', 204);
}

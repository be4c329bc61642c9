/**
 * REST handler set vs Hono on the same routes, in the same run (see rest-apps.ts). Run on demand:
 * `npx vitest bench --run test/bench/rest.bench.ts`; vitest prints each rate and the ratio. Sequential
 * runs drift when the machine is busy; `node --import tsx test/bench/rest-interleaved.ts` alternates
 * the two apps round by round and prints medians, which holds up better under load.
 */
import { afterAll, bench, describe } from 'vitest';
import { serve } from '../../src/node/index.js';
import { check, headers, hono, id, list, one, rest, warmUp } from './rest-apps.js';

// Long runs with warm-up: the CI box has two cores shared with other work, so short runs are noise.
const options = { time: 3000, warmupTime: 1000 };
await warmUp();

describe('in-process: GET /api/v1/clients/{id}', () => {
  bench('switchboard-kit/rest', async () => check(await rest(new Request(one, { headers }))), options);
  bench('hono', async () => check(await hono.fetch(new Request(one, { headers }))), options);
});

describe('in-process: GET /api/v1/clients?page=2&limit=20', () => {
  bench('switchboard-kit/rest', async () => check(await rest(new Request(list, { headers }))), options);
  bench('hono', async () => check(await hono.fetch(new Request(list, { headers }))), options);
});

// Over loopback HTTP, both behind the same node:http adapter, so only the handler differs.
const restServer = await serve({ fetch: rest, port: 0, shutdownSignals: [] });
const honoServer = await serve({ fetch: async (r) => hono.fetch(r), port: 0, shutdownSignals: [] });
afterAll(async () => {
  await restServer.close();
  await honoServer.close();
});

describe('HTTP: GET /api/v1/clients/{id}', () => {
  bench('switchboard-kit/rest', async () =>
    check(await fetch(`${restServer.url}/api/v1/clients/${id}`, { headers })),
  );
  bench(
    'hono',
    async () => check(await fetch(`${honoServer.url}/api/v1/clients/${id}`, { headers })),
    options,
  );
});

describe('HTTP: GET /api/v1/clients?page=2&limit=20', () => {
  bench('switchboard-kit/rest', async () =>
    check(await fetch(`${restServer.url}/api/v1/clients?page=2&limit=20`, { headers })),
  );
  bench('hono', async () =>
    check(await fetch(`${honoServer.url}/api/v1/clients?page=2&limit=20`, { headers })),
  );
});

/**
 * REST handler set vs Hono, interleaved: round after round each app serves a batch of the same
 * requests, so load from other processes hits both alike; prints median rates and the ratio, in
 * process and over loopback HTTP (both apps behind the same node:http adapter, so only the handler
 * differs). Run on demand: `node --import tsx test/bench/rest-interleaved.ts`.
 */
import { serve } from '../../src/node/index.js';
import { check, headers, hono, list, one, rest, warmUp } from './rest-apps.js';

type Handler = (request: Request) => Promise<Response>;
type Call = (path: string) => Promise<Response>;

// Many short rounds: load from other processes drifts slowly, so both apps see the same conditions.
const ROUNDS = 301;
const BATCH = 200;

async function rate(call: Call, path: string, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await check(await call(path));
  return (count / (performance.now() - started)) * 1000;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function compare(label: string, apps: [string, Call][], path: string, batch: number): Promise<void> {
  const rates = new Map<string, number[]>(apps.map(([name]) => [name, []]));
  for (let i = 0; i < 3; i++) for (const [, call] of apps) await rate(call, path, batch * 10);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? apps : [...apps].reverse();
    for (const [name, call] of order) rates.get(name)!.push(await rate(call, path, batch));
  }
  const ours = median(rates.get('switchboard-kit/rest')!);
  const theirs = median(rates.get('hono')!);
  process.stdout.write(
    `${label}\n  switchboard-kit/rest ${Math.round(ours)} req/s\n  hono                 ${Math.round(theirs)} req/s\n  ratio                ${((ours / theirs) * 100).toFixed(1)}% of Hono\n`,
  );
}

await warmUp();
const pathOf = (url: string): string => new URL(url).pathname + new URL(url).search;
const inProcess =
  (handler: Handler): Call =>
  (path) =>
    handler(new Request(`http://localhost${path}`, { headers }));
const honoFetch: Handler = async (request) => hono.fetch(request);

for (const [label, url, batch] of [
  ['GET /api/v1/clients/{id}', one, BATCH],
  ['GET /api/v1/clients?page=2&limit=20', list, BATCH / 4],
] as const) {
  await compare(
    `in-process: ${label}`,
    [
      ['switchboard-kit/rest', inProcess(rest)],
      ['hono', inProcess(honoFetch)],
    ],
    pathOf(url),
    batch,
  );
}

const restServer = await serve({ fetch: rest, port: 0, shutdownSignals: [] });
const honoServer = await serve({ fetch: honoFetch, port: 0, shutdownSignals: [] });
const overHttp =
  (base: string): Call =>
  (path) =>
    fetch(`${base}${path}`, { headers });
for (const [label, url, batch] of [
  ['GET /api/v1/clients/{id}', one, BATCH / 4],
  ['GET /api/v1/clients?page=2&limit=20', list, BATCH / 4],
] as const) {
  await compare(
    `HTTP: ${label}`,
    [
      ['switchboard-kit/rest', overHttp(restServer.url)],
      ['hono', overHttp(honoServer.url)],
    ],
    pathOf(url),
    batch,
  );
}
await restServer.close();
await honoServer.close();

/**
 * The floor of Switchboard's own Node adapter: `switchboard-kit/node`'s `serve` with a fetch handler
 * that reads the body and the Authorization header, as every real handler must, and answers the bytes
 * Switchboard answered once (BENCH_ANSWERS). With BENCH_STRINGIFY it also serialises the answer per
 * request (`JSON.stringify` of the parsed body), the one step every JSON server adds to that floor.
 * What Switchboard cannot beat without doing less work; the runner adds it with `--floors`.
 */
import { serve } from 'switchboard-kit/node';
import { announce } from './fixture.js';
import type { Answer } from './scenarios.js';

const stringify = process.env.BENCH_STRINGIFY === '1';
const captured = JSON.parse(process.env.BENCH_ANSWERS ?? '{}') as Record<string, Answer>;
const answers = new Map(
  Object.entries(captured).map(([key, answer]) => [key, { ...answer, parsed: JSON.parse(answer.body) }]),
);

const server = await serve({
  port: 0,
  async fetch(request) {
    const url = request.url;
    const answer = answers.get(`${request.method} ${url.slice(url.indexOf('/', 8))}`);
    if (request.method !== 'GET') JSON.parse(await request.text());
    if (!answer || !request.headers.get('authorization')) return new Response(null, { status: 404 });
    const body = stringify ? JSON.stringify(answer.parsed) : answer.body;
    return new Response(body, { status: answer.status, headers: answer.headers });
  },
  onShutdown: () => process.exit(0),
});
announce(server.port);

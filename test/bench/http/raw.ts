/**
 * The ceiling: node:http answering each benchmarked request with the bytes Switchboard answered once
 * (BENCH_ANSWERS, captured by the runner), with a Content-Length. No parsing, no auth, no work.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce } from './fixture.js';
import type { Answer } from './scenarios.js';

interface Prepared {
  readonly status: number;
  readonly headers: Record<string, string | number>;
  readonly body: Buffer;
}

const answers = new Map<string, Prepared>();
// Keyed by `METHOD /path?query`.
const captured = JSON.parse(process.env.BENCH_ANSWERS ?? '{}') as Record<string, Answer>;
for (const [key, answer] of Object.entries(captured)) {
  const body = Buffer.from(answer.body);
  answers.set(key, {
    status: answer.status,
    headers: { ...answer.headers, 'content-length': body.byteLength },
    body,
  });
}
const missing: Prepared = { status: 404, headers: { 'content-length': 0 }, body: Buffer.alloc(0) };

const server = createServer((req, res) => {
  const answer = answers.get(`${req.method} ${req.url}`) ?? missing;
  // Drain the request body (POST) before answering, as every real server has to.
  req.resume();
  req.on('end', () => res.writeHead(answer.status, answer.headers).end(answer.body));
});
server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));

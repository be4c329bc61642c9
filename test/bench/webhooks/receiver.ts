/**
 * The webhook receiver both senders (Switchboard's dispatcher and the fetch loop) post to: plain
 * node:http, 200 with an empty body as soon as the body is read, so the receiver is never the limit.
 * It counts what arrived per path and `event_id`, which is how the runner sees deliveries (and
 * duplicates) without asking the sender. `GET /stats` reads the counts, `POST /reset` clears them; a
 * path under `/slow` answers only after 30 s, a receiver that hangs.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce } from '../http/fixture.js';
import type { ReceiverStats } from './stats.js';

const SLOW_MS = 30_000;

/** Wall-clock ms with sub-ms precision, comparable with the runner's (`performance.timeOrigin` based). */
const now = (): number => performance.timeOrigin + performance.now();

interface PathCounts {
  requests: number;
  firstAt: number;
  lastAt: number;
  readonly seen: Set<string>;
}

let paths = new Map<string, PathCounts>();

function record(path: string, body: string): void {
  const at = now();
  const counts = paths.get(path) ?? { requests: 0, firstAt: at, lastAt: at, seen: new Set<string>() };
  paths.set(path, counts);
  counts.requests++;
  counts.lastAt = at;
  counts.seen.add(eventIdOf(body));
}

function eventIdOf(body: string): string {
  try {
    return String((JSON.parse(body) as { event_id?: unknown }).event_id);
  } catch {
    return '(not JSON)';
  }
}

function stats(): ReceiverStats {
  const byPath: Record<string, ReceiverStats['byPath'][string]> = {};
  let requests = 0;
  let unique = 0;
  for (const [path, counts] of paths) {
    byPath[path] = {
      requests: counts.requests,
      unique: counts.seen.size,
      firstAt: counts.firstAt,
      lastAt: counts.lastAt,
    };
    requests += counts.requests;
    unique += counts.seen.size;
  }
  const all = Object.values(byPath);
  return {
    requests,
    unique,
    duplicates: requests - unique,
    firstAt: all.length ? Math.min(...all.map((p) => p.firstAt)) : null,
    lastAt: all.length ? Math.max(...all.map((p) => p.lastAt)) : null,
    byPath,
  };
}

const server = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0]!;
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (request.method === 'GET' && path === '/stats') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats()));
      return;
    }
    if (request.method === 'POST' && path === '/reset') {
      paths = new Map();
      response.writeHead(204).end();
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    record(path, Buffer.concat(chunks).toString('utf8'));
    const answer = (): void => void response.writeHead(200, { 'content-length': '0' }).end();
    if (path.startsWith('/slow')) setTimeout(answer, SLOW_MS).unref();
    else answer();
  });
});

// Senders keep connections alive between deliveries; node's 5 s default would close idle ones mid-run.
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));

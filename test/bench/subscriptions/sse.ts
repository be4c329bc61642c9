/**
 * A lean GraphQL over Server-Sent Events client (graphql-sse, "distinct connections mode") on
 * node:http: each subscriber is its own `POST /graphql` with `Accept: text/event-stream`, answered by a
 * stream of `event: next` / `data: <ExecutionResult>` blocks and finally `event: complete`.
 */
import { Agent, request } from 'node:http';
import {
  AUTHORIZATION,
  type Connection,
  contentOf,
  excerpt,
  SUBSCRIPTION,
  type SubscriberEvents,
} from './subscription.js';

/** The server answered the subscription with something other than an event stream. */
export class NotAnEventStream extends Error {}

// No keep-alive (every stream is its own connection anyway) and no cap on connections.
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
const BODY = JSON.stringify({ query: SUBSCRIPTION });

/** Resolves once the stream's headers arrive; rejects on another answer or none within `timeoutMs`. */
export function openEventStream(
  url: string,
  index: number,
  events: SubscriberEvents,
  timeoutMs: number,
): Promise<Connection> {
  return new Promise((resolve, reject) => {
    let opened = false;
    let ended = false;
    const end = (reason: string): void => {
      if (ended) return;
      ended = true;
      events.failed(index, reason);
    };
    const req = request(`${url}/graphql`, {
      method: 'POST',
      agent,
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        authorization: AUTHORIZATION,
      },
    });
    const timer = setTimeout(() => req.destroy(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      if (opened) end(`stream error: ${error.message}`);
      else reject(error);
    });
    req.on('response', (res) => {
      clearTimeout(timer);
      res.setEncoding('utf8');
      const type = res.headers['content-type'] ?? '';
      if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
        let body = '';
        res.on('data', (chunk: string) => {
          if (body.length < 1_000) body += chunk;
        });
        res.on('end', () =>
          reject(
            new NotAnEventStream(`HTTP ${res.statusCode} ${type || '(no content-type)'}: ${excerpt(body)}`),
          ),
        );
        res.on('error', reject);
        return;
      }
      opened = true;
      resolve({
        close() {
          ended = true;
          req.destroy();
        },
      });
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk.includes('\r') ? chunk.replace(/\r\n?/g, '\n') : chunk;
        for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
          onEvent(buffer.slice(0, at));
          buffer = buffer.slice(at + 2);
        }
      });
      res.on('close', () => end('stream closed by the server'));
    });
    req.end(BODY);

    /** One block of `field: value` lines; comments (`:` lines, e.g. keep-alives) are skipped. */
    function onEvent(block: string): void {
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (event === 'complete') end('completed by the server');
      if (event !== 'next') return;
      const result: unknown = JSON.parse(data.join('\n'));
      const content = contentOf(result);
      if (content === undefined) end(`next without a message: ${excerpt(result)}`);
      else events.next(index, content);
    }
  });
}

/**
 * A lean graphql-transport-ws client on `ws`, one socket carrying `count` subscribers: connection_init
 * with the credentials, connection_ack, then one subscribe per subscriber (ids "0", "1", …). Far less
 * per socket than graphql-ws's createClient, which matters at 10,000 sockets in one process.
 */
import WebSocket from 'ws';
import {
  AUTHORIZATION,
  type Connection,
  contentOf,
  excerpt,
  SUBSCRIPTION,
  type SubscriberEvents,
} from './subscription.js';

interface Frame {
  readonly type: string;
  readonly id?: string;
  readonly payload?: unknown;
}

const INIT = JSON.stringify({ type: 'connection_init', payload: { Authorization: AUTHORIZATION } });
const PONG = JSON.stringify({ type: 'pong' });

/**
 * Resolves once acknowledged and every subscribe is sent; rejects if the socket does not get there
 * within `timeoutMs`. Subscribers `first` to `first + count − 1` report through `events`.
 */
export function openWebSocket(
  url: string,
  first: number,
  count: number,
  events: SubscriberEvents,
  timeoutMs: number,
): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', {
      perMessageDeflate: false,
      handshakeTimeout: timeoutMs,
    });
    const ended = new Uint8Array(count);
    let acknowledged = false;
    let closing = false;
    let lastError = '';
    const end = (id: number, reason: string): void => {
      if (ended[id] || closing) return;
      ended[id] = 1;
      events.failed(first + id, reason);
    };
    const timer = setTimeout(() => {
      lastError = `no connection_ack within ${timeoutMs} ms`;
      socket.terminate();
    }, timeoutMs);

    socket.on('open', () => socket.send(INIT));
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      const id = Number(frame.id);
      switch (frame.type) {
        case 'next': {
          const content = contentOf(frame.payload);
          if (content === undefined) end(id, `next without a message: ${excerpt(frame.payload)}`);
          else events.next(first + id, content);
          return;
        }
        case 'connection_ack':
          acknowledged = true;
          clearTimeout(timer);
          for (let i = 0; i < count; i++)
            socket.send(
              JSON.stringify({ id: String(i), type: 'subscribe', payload: { query: SUBSCRIPTION } }),
            );
          resolve({
            close() {
              closing = true;
              socket.terminate();
            },
          });
          return;
        case 'error':
          return end(id, `error: ${excerpt(frame.payload)}`);
        case 'complete':
          return end(id, 'completed by the server');
        case 'ping':
          return socket.send(PONG);
      }
    });
    // Always followed by 'close'; unheard, it would throw.
    socket.on('error', (error) => {
      lastError = error.message;
    });
    socket.on('close', (code, reason) => {
      clearTimeout(timer);
      const why = lastError || `closed ${code}${reason.length ? ` ${reason}` : ''}`;
      if (!acknowledged) return reject(new Error(why));
      for (let i = 0; i < count; i++) end(i, `socket ${why}`);
    });
  });
}

/**
 * The load side: N subscribers opened against a server, in one of three shapes. Runs in the runner's
 * process, never in the server's: the server is measured alone.
 */
import { openEventStream } from './sse.js';
import type { Connection, SubscriberEvents } from './subscription.js';
import { openWebSocket } from './websocket.js';

/** `socket`: one subscriber per WebSocket; `shared`: 20 per WebSocket; `sse`: one event stream each. */
export type Mode = 'socket' | 'shared' | 'sse';
export const MODES: readonly Mode[] = ['socket', 'shared', 'sse'];

/** Subscribers per WebSocket in `shared` mode (the server's default cap of operations per socket). */
export const SHARED_PER_SOCKET = 20;
/** Connections being opened at once, so the server's accept queue is never flooded. */
const OPENING_AT_ONCE = 200;
const OPEN_TIMEOUT_MS = 15_000;

export interface Fleet {
  /** Connections open (WebSockets or event streams). */
  readonly connections: number;
  close(): void;
}

export function perConnection(mode: Mode): number {
  return mode === 'shared' ? SHARED_PER_SOCKET : 1;
}

/**
 * Opens `n` subscribers; a connection that fails to open reports each of its subscribers through
 * `events.failed`. The first connection is opened alone and its failure thrown: a server that refuses
 * them all is reported once, at once, instead of N times.
 */
export async function openSubscribers(
  url: string,
  mode: Mode,
  n: number,
  events: SubscriberEvents,
): Promise<Fleet> {
  const per = perConnection(mode);
  const total = Math.ceil(n / per);
  const wsUrl = `${url.replace(/^http/, 'ws')}/graphql`;
  const open = (k: number): Promise<Connection> => {
    const first = k * per;
    return mode === 'sse'
      ? openEventStream(url, first, events, OPEN_TIMEOUT_MS)
      : openWebSocket(wsUrl, first, Math.min(per, n - first), events, OPEN_TIMEOUT_MS);
  };

  const connections = [await open(0)];
  let next = 1;
  const opener = async (): Promise<void> => {
    for (let k = next++; k < total; k = next++) {
      try {
        connections.push(await open(k));
      } catch (error) {
        const reason = `open: ${(error as Error).message}`;
        for (let i = k * per; i < Math.min(n, (k + 1) * per); i++) events.failed(i, reason);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPENING_AT_ONCE, total - 1) }, opener));
  return {
    connections: connections.length,
    close() {
      for (const connection of connections) connection.close();
    },
  };
}

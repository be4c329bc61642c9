/**
 * The Bun hookup against stand-ins for Bun's `Server` and `ServerWebSocket` (the members it declares),
 * run on Node; test/bun/bun.test.ts proves it on Bun itself, over the wire.
 */
import { describe, expect, it } from 'vitest';
import { type BunServer, type BunServerWebSocket, bunGraphQLWebSocket } from '../../src/bun/index.js';
import { DEFAULT_LIMITS } from '../../src/graphql/limits.js';
import type { GraphQLWebSocketExtra, GraphQLWebSocketServer } from '../../src/graphql/websocket/server.js';

/** A server core that records what the hookup hands it. */
function fakeCore() {
  const seen = {
    protocol: '',
    extra: undefined as GraphQLWebSocketExtra | undefined,
    send: undefined as ((data: string) => unknown) | undefined,
    receive: undefined as ((data: string) => Promise<void>) | undefined,
    closes: [] as { code?: number; reason?: string }[],
  };
  const core = {
    limits: { ...DEFAULT_LIMITS, maxBodyBytes: 4096 },
    opened(socket: Parameters<GraphQLWebSocketServer['opened']>[0], extra: GraphQLWebSocketExtra) {
      seen.protocol = socket.protocol;
      seen.extra = extra;
      seen.send = socket.send;
      socket.onMessage((data) => seen.receive!(data));
      return async (code?: number, reason?: string) => {
        seen.closes.push({ code, reason });
      };
    },
  } as unknown as GraphQLWebSocketServer;
  return { core, seen };
}

function handshake(path = '/graphql', protocols = 'graphql-transport-ws'): Request {
  return new Request(`http://127.0.0.1:4000${path}`, {
    headers: { upgrade: 'websocket', 'sec-websocket-protocol': protocols, authorization: 'Bearer sbk_x' },
  });
}

/** Bun's server: accepts every upgrade, keeps what it was given, knows the peer's address. */
function fakeBun() {
  const upgrades: { data: unknown; headers?: Record<string, string> }[] = [];
  const bun: BunServer = {
    upgrade(_request, options) {
      upgrades.push(options);
      return true;
    },
    requestIP: () => ({ address: '203.0.113.7' }),
  };
  return { bun, upgrades };
}

interface FakeSocket extends BunServerWebSocket {
  readyState: number;
  buffered: number;
  readonly sent: string[];
  closedWith?: { code?: number; reason?: string };
}

/** An open server socket with the upgrade's data; like Bun's, `close()` calls the close handler at once. */
function openSocket(hookup: ReturnType<typeof bunGraphQLWebSocket>, data: unknown): FakeSocket {
  const socket: FakeSocket = {
    data,
    readyState: 1,
    buffered: 0,
    sent: [],
    send(text) {
      socket.sent.push(text);
      return text.length;
    },
    close(code, reason) {
      socket.readyState = 3;
      socket.closedWith = { code, reason };
      hookup.websocket.close(socket, code ?? 1000, reason ?? '');
    },
    getBufferedAmount: () => socket.buffered,
  };
  hookup.websocket.open(socket);
  return socket;
}

describe('bunGraphQLWebSocket', () => {
  it('leaves requests that are not a WebSocket handshake on its path to the host', () => {
    const { core } = fakeCore();
    const { bun, upgrades } = fakeBun();
    const hookup = bunGraphQLWebSocket(core);
    expect(hookup.upgrade(new Request('http://127.0.0.1:4000/graphql'), bun)).toBeUndefined();
    expect(hookup.upgrade(handshake('/other'), bun)).toBeUndefined();
    expect(upgrades).toEqual([]);
  });

  it('answers 400 without upgrading when the client offers no graphql-transport-ws sub-protocol', () => {
    const { core } = fakeCore();
    const { bun, upgrades } = fakeBun();
    const response = bunGraphQLWebSocket(core).upgrade(handshake('/graphql', 'graphql-ws'), bun);
    expect(response?.status).toBe(400);
    expect(upgrades).toEqual([]);
  });

  it('upgrades with the sub-protocol chosen, and keeps the headers and the peer address for the core', () => {
    const { core, seen } = fakeCore();
    const { bun, upgrades } = fakeBun();
    const hookup = bunGraphQLWebSocket(core);
    expect(hookup.upgrade(handshake('/graphql', 'foo, graphql-transport-ws'), bun)).toBeInstanceOf(Response);
    expect(upgrades[0]!.headers).toEqual({ 'sec-websocket-protocol': 'graphql-transport-ws' });
    openSocket(hookup, upgrades[0]!.data);
    expect(seen.protocol).toBe('graphql-transport-ws');
    expect(seen.extra!.request!.headers.get('authorization')).toBe('Bearer sbk_x');
    expect(seen.extra!.clientAddress).toBe('203.0.113.7');
  });

  it('hands text messages to the core and closes with 4400 on a binary one', async () => {
    const { core, seen } = fakeCore();
    const { bun, upgrades } = fakeBun();
    const hookup = bunGraphQLWebSocket(core);
    hookup.upgrade(handshake(), bun);
    const socket = openSocket(hookup, upgrades[0]!.data);
    const received: string[] = [];
    seen.receive = async (data) => {
      received.push(data);
    };
    hookup.websocket.message(socket, '{"type":"ping"}');
    expect(received).toEqual(['{"type":"ping"}']);
    hookup.websocket.message(socket, new Uint8Array([1, 2, 3]));
    expect(socket.closedWith).toEqual({ code: 4400, reason: 'Binary messages are not supported' });
  });

  it('closes a peer that does not read with 1013 instead of queueing more for it', () => {
    const { core, seen } = fakeCore();
    const { bun, upgrades } = fakeBun();
    const hookup = bunGraphQLWebSocket(core, { maxBufferedBytes: 100 });
    hookup.upgrade(handshake(), bun);
    const socket = openSocket(hookup, upgrades[0]!.data);
    seen.extra!.sendText!('first');
    socket.buffered = 101;
    seen.extra!.sendText!('second');
    expect(socket.sent).toEqual(['first']);
    expect(socket.closedWith).toEqual({ code: 1013, reason: 'Subscriber too slow' });
  });

  it('tells the core of a close after the call that caused it, once', async () => {
    const { core, seen } = fakeCore();
    const { bun, upgrades } = fakeBun();
    const hookup = bunGraphQLWebSocket(core);
    hookup.upgrade(handshake(), bun);
    const socket = openSocket(hookup, upgrades[0]!.data);
    seen.extra!.close!(4403, 'Forbidden');
    seen.extra!.close!(4403, 'Forbidden');
    expect(seen.closes).toEqual([]);
    await Promise.resolve();
    expect(seen.closes).toEqual([{ code: 4403, reason: 'Forbidden' }]);
    expect(socket.closedWith).toEqual({ code: 4403, reason: 'Forbidden' });
  });

  it("takes Bun's message size limit from the GraphQL limits, and pings idle sockets every 12 s", () => {
    const { core } = fakeCore();
    expect(bunGraphQLWebSocket(core).websocket).toMatchObject({
      maxPayloadLength: 4096,
      idleTimeout: 12,
      sendPings: true,
    });
    expect(bunGraphQLWebSocket(core, { maxMessageBytes: 10 }).websocket.maxPayloadLength).toBe(10);
  });
});

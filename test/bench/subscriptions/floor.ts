/**
 * The floor, not a competitor: what the same fan-out costs with no GraphQL at all. A bare `ws`
 * WebSocketServer on node:http that speaks just enough graphql-transport-ws for the bench client
 * (connection_init → connection_ack, ping → pong, subscribe and complete remembered and forgotten by
 * id) and answers `POST /api/v1/chatbots/bot-1/messages` with a 201 shaped like Switchboard's, then
 * sends every subscriber a `next` frame shaped like Switchboard's: the payload serialised once per
 * message, one frame per subscriber. No authentication, no validation, no parsing of the operation, no
 * chatbot filter. Like server.ts, the line `memory` on stdin is answered with `REPLY <heapUsed> <rss>`
 * (bytes, after a forced GC; start node with `--expose-gc`).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { announce } from '../http/fixture.js';
import { answerMemoryRequests } from './memory-report.js';
import { CHATBOT_ID } from './subscription.js';

const MESSAGES_PATH = `/api/v1/chatbots/${CHATBOT_ID}/messages`;
const ACK = JSON.stringify({ type: 'connection_ack' });
const PONG = JSON.stringify({ type: 'pong' });

/** The ids of the operations subscribed on each open socket. */
const subscriptions = new Map<WebSocket, Set<string>>();

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== MESSAGES_PATH) {
    req.resume();
    res.writeHead(404, { 'content-length': 0 }).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const { visitorId, content } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      visitorId: string;
      content: string;
    };
    const id = `msg_${randomUUID().replaceAll('-', '')}`;
    const timestamp = new Date().toISOString();
    const body = JSON.stringify({ id, chatbotId: CHATBOT_ID, visitorId, content, timestamp });
    res
      .writeHead(201, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        location: `/api/v1/messages/${id}`,
      })
      .end(body);
    // The fields the bench's subscription selects, in its order.
    const payload = JSON.stringify({ data: { onNewMessage: { content, timestamp, visitor_id: visitorId } } });
    const suffix = `,"type":"next","payload":${payload}}`;
    for (const [socket, ids] of subscriptions) {
      for (const operation of ids) socket.send(`{"id":${JSON.stringify(operation)}${suffix}`);
    }
  });
});

const sockets = new WebSocketServer({ server, path: '/graphql', perMessageDeflate: false });
sockets.on('connection', (socket) => {
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { type?: string; id?: string };
    switch (frame.type) {
      case 'connection_init':
        subscriptions.set(socket, new Set());
        return socket.send(ACK);
      case 'ping':
        return socket.send(PONG);
      case 'subscribe':
        if (frame.id !== undefined) subscriptions.get(socket)?.add(frame.id);
        return;
      case 'complete':
        if (frame.id !== undefined) subscriptions.get(socket)?.delete(frame.id);
        return;
    }
  });
  socket.on('close', () => subscriptions.delete(socket));
  // Always followed by 'close'; unheard, it would throw.
  socket.on('error', () => {});
});

answerMemoryRequests();
server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));

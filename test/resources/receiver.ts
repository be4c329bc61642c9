import { type NodeServer, serve } from '../../src/node/index.js';

/** One webhook as a receiver got it. */
export interface ReceivedWebhook {
  readonly event: string;
  readonly data: Record<string, unknown>;
  readonly signature: string | null;
}

/** A webhook receiver on a loopback port that records what arrives and answers 200. */
export async function startReceiver(): Promise<{ server: NodeServer; received: ReceivedWebhook[] }> {
  const received: ReceivedWebhook[] = [];
  const server = await serve({
    port: 0,
    shutdownSignals: [],
    fetch: async (request) => {
      const payload = JSON.parse(await request.text());
      received.push({
        event: payload.event,
        data: payload.data,
        signature: request.headers.get('x-signature'),
      });
      return new Response('ok');
    },
  });
  return { server, received };
}

/**
 * A complete webhook consumer: verifies every request, processes each event once, answers fast and
 * does the slow part afterwards. Register `http://127.0.0.1:4001/webhooks` (https in production) as a
 * webhook endpoint first (README.md beside this file), then run it with the secret that answered:
 *
 *   WEBHOOK_SECRETS=whsec_… node --import tsx examples/webhook-receiver/main.ts
 */
import { serve } from 'switchboard-kit/node';
import { createMemoryStorage } from 'switchboard-kit/storage/memory';
import { createWebhookReceiver, type ReceivedWebhook } from 'switchboard-kit/webhooks';

const secrets = (process.env.WEBHOOK_SECRETS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
if (secrets.length === 0) {
  process.stderr.write(
    'Set WEBHOOK_SECRETS to the endpoint secret (several, comma-separated, during a rotation).\n',
  );
  process.exit(78); // EX_CONFIG
}
const scheme = process.env.WEBHOOK_SCHEME === 'standard' ? 'standard' : 'switchboard';
const log = (fields: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
};

// Processed event ids live here for 72 h. Use the PostgreSQL storage's `idempotency` instead when
// you run several instances or want duplicates caught across restarts.
const storage = createMemoryStorage();

async function handle(event: ReceivedWebhook): Promise<void> {
  // Stand-in for real work: update a CRM, notify an agent, send an e-mail …
  log({ msg: 'processing', event_id: event.id, event: event.type });
  await new Promise((resolve) => setTimeout(resolve, 100));
  log({ msg: 'processed', event_id: event.id, event: event.type, data: event.payload.data });
}

const receive = createWebhookReceiver({
  secrets,
  scheme,
  idempotency: storage.idempotency,
  onEvent: (event, { defer }) => {
    log({ msg: 'received', event_id: event.id, event: event.type });
    // Quick: answer now, work after. Anything that must never be lost belongs before `defer`.
    defer(() => handle(event));
  },
});

const server = await serve({
  port: Number(process.env.PORT ?? '4001'),
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (pathname !== '/webhooks') return new Response('Not found', { status: 404 });
    const response = await receive(request);
    if (response.status >= 400)
      log({ msg: 'rejected', status: response.status, reason: await response.clone().text() });
    return response;
  },
  onShutdown: () => receive.drain(),
});
process.stdout.write(`Webhook receiver listening on ${server.url}/webhooks\n`);

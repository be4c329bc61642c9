/**
 * The peer the dispatcher is measured against: what a delivery costs with nothing around it. It sends
 * BENCH_COUNT POSTs to BENCH_URL, BENCH_CONCURRENCY at a time, each the bytes a real delivery has (a
 * `client.created` payload with its own event_id, signed per request with `signWebhook` in the
 * Switchboard scheme, the dispatcher's headers) with the global `fetch`: sign + fetch, no storage, no
 * queue, no retries. Then it prints one JSON line, `{"elapsedMs":…,"ok":…}`, and exits.
 */
import { randomBytes } from 'node:crypto';
import { generateWebhookSecret, signWebhook } from 'switchboard-kit/webhooks';

const url = process.env.BENCH_URL;
const count = Number(process.env.BENCH_COUNT);
const concurrency = Number(process.env.BENCH_CONCURRENCY);
if (!url || !(count > 0) || !(concurrency > 0))
  throw new Error('fetch-loop needs BENCH_URL, BENCH_COUNT and BENCH_CONCURRENCY');

// The runner holds our stdin open: when it closes (the runner stopped or died), we go too.
process.stdin.on('end', () => process.exit(1));
process.stdin.resume();

const secret = generateWebhookSecret();
const run = randomBytes(8).toString('hex');
/** 32 hex digits after the prefix, as long as Switchboard's sortable ids. */
const idOf = (prefix: string, i: number): string => `${prefix}_${run}${i.toString(16).padStart(16, '0')}`;

/** The payload as webhookPayload() writes it for a created client; built before the clock starts. */
function payload(i: number): string {
  const at = new Date().toISOString();
  return JSON.stringify({
    event: 'client.created',
    event_id: idOf('evt', i),
    created_at: at,
    data: {
      id: idOf('cli', i),
      name: 'Bench Client',
      email: `bench-${run}-${i}@example.com`,
      phone: null,
      city: null,
      createdAt: at,
      updatedAt: at,
      version: 1,
    },
  });
}
const bodies = Array.from({ length: count }, (_, i) => payload(i));

let next = 0;
let ok = 0;
async function worker(): Promise<void> {
  while (next < count) {
    const i = next++;
    const body = bodies[i]!;
    const headers = await signWebhook({
      body,
      secrets: [secret],
      eventId: idOf('evt', i),
      timestamp: Math.floor(Date.now() / 1000),
    });
    headers['user-agent'] = 'switchboard-webhooks/1';
    const response = await fetch(url!, { method: 'POST', headers, body, redirect: 'manual' });
    await response.arrayBuffer();
    if (response.ok) ok++;
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
const elapsedMs = performance.now() - started;
process.stdout.write(`${JSON.stringify({ elapsedMs, ok })}\n`);
process.exit(0);
